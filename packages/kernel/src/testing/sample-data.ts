import { createKernel } from '../kernel.js'
import type { Storage } from '../storage.js'
import { sampleArtifact, sampleContract, sampleFact, sampleRunbook } from './fixtures.js'

/**
 * Fill `storage` with every kind of data it keeps: facts written through the kernel (a supersedes
 * chain, expiry, tags), the fixtures' hard text, runbooks, contracts, artifacts,
 * the index, events, and a consumer's open collection, log and events. The clock is fixed.
 */
export async function fillSample(storage: Storage): Promise<void> {
  let t = Date.parse('2026-11-30T12:00:00Z')
  const kernel = createKernel({ storage, now: () => new Date((t += 1000)) })
  const decision = (title: string, extra: Record<string, unknown> = {}) => ({
    title,
    body: 'Chosen after a spike.\nWhy: the team reads plain SQL.\nHow to apply: write migrations as SQL files.',
    type: 'decision',
    ...extra,
  })
  await kernel.memory.write(
    decision('Migrations use Flyway', { tags: ['db', 'migrations'], confidence: 'high', source: 'adr-0007' }),
  )
  await kernel.memory.write(decision('API timeout is 30 seconds', { scope: 'module:gateway' }))
  await kernel.memory.write(decision('API timeout is 60 seconds', { scope: 'module:gateway' }))
  await kernel.memory.write(decision('API timeout is 90 seconds', { scope: 'module:gateway', expires: '2099-01-01' }))
  await kernel.memory.write({
    title: 'An invoice is a tax document',
    body: 'Invoices are immutable once sent.',
    type: 'glossary',
    source: 'external:https://example.com/tax',
  })
  for (const n of [40, 41]) await storage.put('facts', sampleFact(n).id, sampleFact(n, { supersedes: 'fact-0002' }))
  await storage.put(
    'facts',
    'fact-0042',
    sampleFact(42, { status: 'superseded', supersededBy: 'fact-0041', expires: '2026-12-31' }),
  )
  await storage.put('runbooks', sampleRunbook.slug, sampleRunbook)
  await storage.put('runbooks', 'rotate-keys', {
    slug: 'rotate-keys',
    title: 'Rotate keys',
    body: 'No trigger: run by hand.\n',
  })
  await storage.put('contracts', sampleContract.id, sampleContract)
  await storage.put('artifacts', 'audit/appsec-reviewer', sampleArtifact)
  await storage.put('artifacts', 'audit/perf-reviewer', {
    wave: 'audit',
    agent: 'perf-reviewer',
    data: { summary: 'Fine.', numbers: [1.5, -0, 1e21], empty: {} },
  })
  await kernel.memory.index()
  await storage.appendEvent({
    ts: '2026-11-30T12:30:00.000Z',
    kind: 'gate_blocked',
    data: { reason: 'unicode ✓ "quotes"' },
  })
  await storage.appendEvent({ ts: '2026-11-30T12:31:00.000Z', kind: 'session_end' })
  // A consumer's records, log and events.
  await storage.put('marbles.runs', 'run-1', {
    id: 'run-1',
    steps: [{ name: 'plan', ok: true }],
    cost: 0.25,
    note: null,
    label: 'ü ✓',
  })
  await storage.put('marbles.runs', 'archive/run-0', 'a plain string')
  await storage.appendLog('marbles/run-1', ['{"step":"plan"}', 'line\nbreak', ''])
  await storage.appendLog('marbles/run-1', ['done'])
  await storage.appendEvent({ ts: '2026-11-30T12:32:00.000Z', kind: 'marbles.run_finished', data: { run: 'run-1' } })
}

/** What `dumpStorage` returns: everything a lossless copy carries, as comparable data. */
export type StorageDump = Awaited<ReturnType<typeof dumpStorage>>

/** Everything `copyStorage` carries, as comparable data (records in key order, events, open collections, logs). */
export async function dumpStorage(storage: Storage) {
  return {
    facts: await storage.list('facts'),
    runbooks: await storage.list('runbooks'),
    contracts: await storage.list('contracts'),
    artifacts: await storage.list('artifacts'),
    index: await storage.get('meta', 'index'),
    events: await storage.readEvents(),
    open: await Promise.all(
      (await storage.collections())
        .filter((c) => c.includes('.'))
        .map(async (c) => ({ c, keys: await storage.keys(c), values: await storage.list(c) })),
    ),
    logs: await Promise.all((await storage.logs()).map(async (log) => ({ log, ...(await storage.readLog(log, 0)) }))),
  }
}
