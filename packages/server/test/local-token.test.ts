// The local token on real files: written 0600 in a 0700 folder, kept across claims, one winner when
// claimed at once, and refused in a folder open to others or over a symlink.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { claimLocalToken } from '../src/http/local-token.js'
import { LOCAL } from '../src/http/serve.js'

const made: string[] = []
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-token-'))
  made.push(dir)
  return dir
}
/** The message `promise` rejects with ('' when it resolves). */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => '',
    (error: unknown) => String((error as Error).message),
  )
test.after(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

test('written mode 0600 in a folder made 0700; claimed again, the same secret; it verifies as LOCAL', async () => {
  const file = join(scratch(), 'foundry', 'http.token')
  const first = await claimLocalToken(file)
  assert.match(first.secret, /^fdl_[A-Za-z0-9_-]{32}$/)
  assert.is(statSync(file).mode & 0o777, 0o600)
  assert.is(statSync(join(file, '..')).mode & 0o777, 0o700)
  assert.is((await claimLocalToken(file)).secret, first.secret)
  assert.is(first.store.verify(first.secret), LOCAL)
  assert.is(first.store.verify('fdl_other'), undefined)
})

test('claimed by several at once: one token, which every claim returns', async () => {
  const file = join(scratch(), 'foundry', 'http.token')
  const claims = await Promise.all(Array.from({ length: 8 }, () => claimLocalToken(file)))
  assert.is(new Set(claims.map((c) => c.secret)).size, 1)
})

test('a malformed file of the user is replaced; a folder open to others and a symlinked file are refused, never changed', async () => {
  const dir = join(scratch(), 'foundry')
  mkdirSync(dir, { mode: 0o700 })
  writeFileSync(join(dir, 'http.token'), 'not a token\n', { mode: 0o600 })
  assert.match((await claimLocalToken(join(dir, 'http.token'))).secret, /^fdl_/)
  const open = join(scratch(), 'foundry')
  mkdirSync(open)
  chmodSync(open, 0o755)
  assert.match(
    await refusal(claimLocalToken(join(open, 'http.token'))),
    /Local token refused: .* is open to group or others \(mode 755\); remove it, or make it yours with mode 0700/,
  )
  assert.is(statSync(open).mode & 0o777, 0o755)
  const linked = join(scratch(), 'foundry')
  mkdirSync(linked, { mode: 0o700 })
  symlinkSync(join(scratch(), 'elsewhere'), join(linked, 'http.token'))
  assert.match(await refusal(claimLocalToken(join(linked, 'http.token'))), /is not a regular file/)
})

test.run()
