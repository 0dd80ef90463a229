// The private runtime folder's rule (the hook sockets and the local token share it), from the environment.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { currentUid, localTokenPath, privateRuntimeDir } from '../src/runtime.js'

const SAVED = { TMPDIR: process.env.TMPDIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR }
const base = mkdtempSync(join(tmpdir(), 'runtime-dir-'))
const restore = (name: keyof typeof SAVED) =>
  SAVED[name] === undefined ? delete process.env[name] : (process.env[name] = SAVED[name])
test.after(() => {
  restore('TMPDIR')
  restore('XDG_RUNTIME_DIR')
  rmSync(base, { recursive: true, force: true })
})

test('XDG_RUNTIME_DIR a folder of the user: $XDG_RUNTIME_DIR/foundry/, and the local token is http.token there', () => {
  const runtime = join(base, 'run')
  mkdirSync(runtime)
  process.env.XDG_RUNTIME_DIR = runtime
  assert.is(privateRuntimeDir(), join(runtime, 'foundry'))
  assert.is(localTokenPath(), join(runtime, 'foundry', 'http.token'))
})

test('XDG_RUNTIME_DIR unset, relative or missing: <tmpdir>/foundry-<uid>/', () => {
  process.env.TMPDIR = join(base, 'tmp')
  const fallback = join(base, 'tmp', `foundry-${currentUid()}`)
  for (const value of [undefined, 'relative/run', join(base, 'missing')]) {
    if (value === undefined) delete process.env.XDG_RUNTIME_DIR
    else process.env.XDG_RUNTIME_DIR = value
    assert.is(privateRuntimeDir(), fallback, String(value))
    assert.is(localTokenPath(), join(fallback, 'http.token'))
  }
})

test.run()
