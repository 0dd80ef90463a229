// The token book: created, listed and revoked in the token file or in a networked storage, and the
// accepted tokens a server follows: a revoked token is refused without a restart.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError, memoryStorage } from '@foundry/kernel'
import { tokenBook } from '../src/http/token-book.js'

const roots: string[] = []
const tempRoot = () => {
  const root = mkdtempSync(join(tmpdir(), 'foundry-tokens-'))
  roots.push(root)
  return root
}
test.after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })))

async function code(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn()
  } catch (error) {
    if (isFoundryError(error)) return error.code
    throw error
  }
  return 'none'
}

/** Polls `check` until true, at most `ms` (a generous bound: the figure itself is the bench's). */
async function eventually(check: () => boolean, ms = 15_000): Promise<boolean> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) return false
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return true
}

test('on files: create, list and revoke edit .foundry/tokens.json (0600); a running store refuses the revoked token at once', async () => {
  const root = tempRoot()
  const book = tokenBook({ root, storage: memoryStorage() }, {})
  assert.is(book.where, join(root, '.foundry', 'tokens.json'))
  const alice = await book.create('alice', ['read'])
  const bob = await book.create('bob@team', ['write'])
  assert.is(statSync(book.where).mode & 0o777, 0o600)
  assert.equal(
    (await book.list()).map((t) => t.name),
    ['alice', 'bob@team'],
  )
  assert.is(await code(() => book.create('alice', ['read'])), 'CONFLICT')

  const accepted = await book.open()
  assert.is(accepted.verify(alice.secret)?.name, 'alice')
  assert.equal(accepted.verify(bob.secret)?.roles, ['write'])
  assert.is((await book.revoke('alice')).name, 'alice')
  assert.is(accepted.verify(alice.secret), undefined, 'the next check reads the changed file')
  assert.is(accepted.verify(bob.secret)?.name, 'bob@team')
  assert.is(await code(() => book.revoke('alice')), 'NOT_FOUND')
  assert.equal(
    (await book.list()).map((t) => t.name),
    ['bob@team'],
  )
  const carol = await book.create('carol', ['run'])
  assert.is(accepted.verify(carol.secret)?.name, 'carol', 'a token created while serving is accepted too')
  accepted.close()
})

test('on a networked storage: the tokens are records of server.tokens (hashes only); a running store follows a revocation', async () => {
  const root = tempRoot()
  const storage = memoryStorage()
  const book = tokenBook({ root, storage, networked: true }, { FOUNDRY_TOKENS: 'ci:read:fixed-secret' })
  const alice = await book.create('alice@team', ['read', 'write'])
  assert.is(await code(() => book.create('alice@team', ['read'])), 'CONFLICT')
  const stored = JSON.stringify(await storage.list('server.tokens'))
  assert.ok(
    stored.includes('alice@team') && !stored.includes(alice.secret),
    'the record keeps the hash, never the secret',
  )
  assert.equal(
    (await book.list()).map((t) => [t.name, t.roles]),
    [['alice@team', ['read', 'write']]],
  )

  const accepted = await book.open()
  try {
    assert.is(accepted.verify(alice.secret)?.name, 'alice@team')
    assert.is(accepted.verify('fixed-secret')?.name, 'ci', 'FOUNDRY_TOKENS still counts')
    await book.revoke('alice@team')
    assert.ok(
      await eventually(() => accepted.verify(alice.secret) === undefined),
      'the revoked token is refused without a restart',
    )
    assert.is(accepted.verify('fixed-secret')?.name, 'ci')
    assert.is(await code(() => book.revoke('alice@team')), 'NOT_FOUND')
    assert.equal(await book.list(), [])
  } finally {
    accepted.close()
  }
})

test('a bad name is refused with the field named', async () => {
  const book = tokenBook({ root: tempRoot(), storage: memoryStorage() }, {})
  let message = ''
  await book.create('no spaces', ['read']).catch((error: Error) => (message = error.message))
  assert.match(message, /^--name must be letters, digits/)
})

test.run()
