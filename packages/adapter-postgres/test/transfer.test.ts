import { readdirSync, readFileSync } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { copyStorage, createKernel, memoryStorage, type Storage } from '@foundry/kernel'
import { sampleArtifact, sampleContract, sampleFact, sampleRunbook } from '@foundry/kernel/testing'
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

// The same data and comparison as @foundry/adapter-sqlite's transfer test.
/** Every kind of record: facts written through the kernel (a supersedes chain, expiry, tags), the fixtures' hard text, runbooks, contracts, artifacts, the index, events, and a consumer's open collection, log and events. */
async function fill(storage: Storage): Promise<void> {
  let t = Date.parse('2026-11-30T12:00:00Z')
  const kernel = createKernel({ storage, now: () => new Date((t += 1000)) })
  const decision = (title: string, extra: Record<string, unknown> = {}) => ({
    title,
    body: 'Chosen after a spike.\nWhy: the team reads plain SQL.\nHow to apply: write migrations as SQL files.',
    type: 'decision',
    ...extra,
  })
  await kernel.memory.write(decision('Migrations use Flyway', { tags: ['db', 'migrations'], confidence: 'high', source: 'adr-0007' }))
  await kernel.memory.write(decision('API timeout is 30 seconds', { scope: 'module:gateway' }))
  await kernel.memory.write(decision('API timeout is 60 seconds', { scope: 'module:gateway' }))
  await kernel.memory.write(decision('API timeout is 90 seconds', { scope: 'module:gateway', expires: '2099-01-01' }))
  await kernel.memory.write({ title: 'An invoice is a tax document', body: 'Invoices are immutable once sent.', type: 'glossary', source: 'external:https://example.com/tax' })
  for (const n of [40, 41]) await storage.put('facts', sampleFact(n).id, sampleFact(n, { supersedes: 'fact-0002' }))
  await storage.put('facts', 'fact-0042', sampleFact(42, { status: 'superseded', supersededBy: 'fact-0041', expires: '2026-12-31' }))
  await storage.put('runbooks', sampleRunbook.slug, sampleRunbook)
  await storage.put('runbooks', 'rotate-keys', { slug: 'rotate-keys', title: 'Rotate keys', body: 'No trigger: run by hand.\n' })
  await storage.put('contracts', sampleContract.id, sampleContract)
  await storage.put('artifacts', 'audit/appsec-reviewer', sampleArtifact)
  await storage.put('artifacts', 'audit/perf-reviewer', { wave: 'audit', agent: 'perf-reviewer', data: { summary: 'Fine.', numbers: [1.5, -0, 1e21], empty: {} } })
  await kernel.memory.index()
  await storage.appendEvent({ ts: '2026-11-30T12:30:00.000Z', kind: 'gate_blocked', data: { reason: 'unicode ✓ "quotes"' } })
  await storage.appendEvent({ ts: '2026-11-30T12:31:00.000Z', kind: 'session_end' })
  // A consumer's records, log and events.
  await storage.put('marbles.runs', 'run-1', { id: 'run-1', steps: [{ name: 'plan', ok: true }], cost: 0.25, note: null, label: 'ü ✓' })
  await storage.put('marbles.runs', 'archive/run-0', 'a plain string')
  await storage.appendLog('marbles/run-1', ['{"step":"plan"}', 'line\nbreak', ''])
  await storage.appendLog('marbles/run-1', ['done'])
  await storage.appendEvent({ ts: '2026-11-30T12:32:00.000Z', kind: 'marbles.run_finished', data: { run: 'run-1' } })
}

/** Everything copyStorage carries, as comparable data. */
async function dump(storage: Storage) {
  return {
    facts: await storage.list('facts'),
    runbooks: await storage.list('runbooks'),
    contracts: await storage.list('contracts'),
    artifacts: await storage.list('artifacts'),
    index: await storage.get('meta', 'index'),
    events: await storage.readEvents(),
    open: await Promise.all(
      (await storage.collections()).filter((c) => c.includes('.')).map(async (c) => ({ c, keys: await storage.keys(c), values: await storage.list(c) })),
    ),
    logs: await Promise.all((await storage.logs()).map(async (log) => ({ log, ...(await storage.readLog(log, 0)) }))),
  }
}

test('memory → postgres → memory keeps every field of every record, log and event', async () => {
  const source = memoryStorage()
  await fill(source)
  const before = await dump(source)
  assert.ok(before.facts.some((f) => f.status === 'superseded' && f.supersededBy), 'the data holds a supersedes chain')
  const db = await postgresStorage({ url: await server.fresh() })
  const report = await copyStorage(source, db)
  assert.equal(report, { facts: before.facts.length, runbooks: 2, contracts: 1, artifacts: 2, meta: 1, events: before.events.length, open: { 'marbles.runs': 2 }, logEntries: 4 })
  assert.equal(await dump(db), before, 'postgres holds the same')
  const back = memoryStorage()
  await copyStorage(db, back)
  assert.equal(await dump(back), before, 'and gives back the same')
  await db.close?.()
})

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
  await fill(folder)
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
  assert.ok(a.has(join('data', 'marbles.runs', 'run-1.json')) && a.has(join('logs', 'marbles', 'run-1.jsonl')), 'a consumer\'s records and log are among them')
  assert.equal([...b.keys()].sort(), [...a.keys()].sort(), 'the same files')
  for (const [path, text] of a) assert.fixture(b.get(path) ?? '', text, path)
})

test.run()
