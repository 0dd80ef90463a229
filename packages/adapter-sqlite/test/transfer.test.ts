import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { copyStorage } from '@foundry/kernel'
import { fillSample } from '@foundry/kernel/testing'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
// adapter-fs is not a dependency of this package (the lockfile is shared); its build is.
import { fsStorage } from '../../adapter-fs/dist/index.js'
import { sqliteStorage } from '../src/index.js'
import { tempDb, tempDir } from './helpers.js'

/** Every file under `dir` but the cache (retriever snapshots, journals, the lock), by relative path. */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = relative(dir, join(entry.parentPath, entry.name))
    if (!path.startsWith('cache')) out.set(path, readFileSync(join(dir, path), 'utf8'))
  }
  return out
}

test('the folder layout → sqlite → the folder layout gives identical files', async () => {
  const one = tempDir()
  const folder = fsStorage({ root: one })
  await fillSample(folder)
  const db = sqliteStorage({ path: tempDb() })
  await copyStorage(folder, db)
  const two = tempDir()
  const back = fsStorage({ root: two })
  await copyStorage(db, back)
  for (const s of [folder, db, back]) await s.close?.()

  const a = files(join(one, '.foundry'))
  const b = files(join(two, '.foundry'))
  assert.ok(
    a.has(join('memory', 'facts', 'fact-0003.md')) &&
      a.has(join('metrics', 'events.jsonl')) &&
      a.has(join('memory', 'INDEX.md')),
    [...a.keys()].join(', '),
  )
  assert.ok(
    a.has(join('data', 'marbles.runs', 'run-1.json')) && a.has(join('logs', 'marbles', 'run-1.jsonl')),
    "a consumer's records and log are among them",
  )
  assert.equal([...b.keys()].sort(), [...a.keys()].sort(), 'the same files')
  for (const [path, text] of a) assert.fixture(b.get(path) ?? '', text, path)
})

test.run()
