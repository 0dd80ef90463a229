import { readdirSync, readFileSync } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { copyStorage } from '@foundry/kernel'
import { fillSample } from '@foundry/kernel/testing'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
// adapter-fs and adapter-sqlite are not dependencies of this package (the lockfile is shared); their builds are.
import { fsStorage } from '../../adapter-fs/dist/index.js'
import { sqliteStorage } from '../../adapter-sqlite/dist/index.js'
import { postgresStorage } from '../src/index.js'
import { useServer } from './helpers.js'

const server = useServer(test)
const dirs: string[] = []
test.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))
const tempDir = () => (dirs.push(mkdtempSync(join(tmpdir(), 'foundry-pg-transfer-'))), dirs[dirs.length - 1]!)

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

test('the folder layout → postgres → sqlite → postgres → the folder layout gives identical files', async () => {
  const one = tempDir()
  const folder = fsStorage({ root: one })
  await fillSample(folder)
  const pg1 = await postgresStorage({ url: await server.fresh() })
  await copyStorage(folder, pg1)
  const db = sqliteStorage({ path: join(tempDir(), 'foundry.db') })
  await copyStorage(pg1, db)
  const pg2 = await postgresStorage({ url: await server.fresh() })
  await copyStorage(db, pg2)
  const two = tempDir()
  const back = fsStorage({ root: two })
  await copyStorage(pg2, back)
  for (const s of [folder, pg1, db, pg2, back]) await s.close?.()

  const a = files(join(one, '.foundry'))
  const b = files(join(two, '.foundry'))
  assert.ok(
    a.has(join('data', 'marbles.runs', 'run-1.json')) && a.has(join('logs', 'marbles', 'run-1.jsonl')),
    "a consumer's records and log are among them",
  )
  assert.equal([...b.keys()].sort(), [...a.keys()].sort(), 'the same files')
  for (const [path, text] of a) assert.fixture(b.get(path) ?? '', text, path)
})

test.run()
