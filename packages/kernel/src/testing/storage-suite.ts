import type { FoundryEvent } from '../schema/event.js'
import type { Storage } from '../storage.js'
import { equal, ok, rejects } from './expect.js'
import { sampleArtifact, sampleContract, sampleFact, sampleRunbook } from './fixtures.js'

/** The test registration function of any runner: uvu's `test`, node:test's `test`, vitest's `it`. */
export type TestFn = (name: string, fn: () => Promise<void> | void) => void

export interface SuiteOptions {
  /** Known gaps, with the reason; the names are the case names below. */
  skip?: Array<{ reason: string; tests: string[] }>
  /** Prefix for case names, e.g. `fsStorage: `. */
  prefix?: string
}

type Case = [name: string, fn: (storage: Storage) => Promise<void>]

/**
 * Every behaviour a `Storage` owes the kernel. `make` returns a new, empty store for each case; the
 * suite closes it afterwards. Register with `storageSuite(test, () => myStorage(...))`.
 */
export function storageSuite(test: TestFn, make: () => Storage | Promise<Storage>, options: SuiteOptions = {}): void {
  register(test, STORAGE_CASES, make, options)
}

export function register<T extends { close?(): Promise<void> }>(
  test: TestFn,
  cases: Array<[string, (subject: T) => Promise<void>]>,
  make: () => T | Promise<T>,
  options: SuiteOptions,
): void {
  const skipped = new Map<string, string>()
  for (const s of options.skip ?? []) for (const name of s.tests) skipped.set(name, s.reason)
  const known = new Set(cases.map(([name]) => name))
  for (const name of skipped.keys()) if (!known.has(name)) throw new Error(`skip names an unknown case "${name}"`)
  for (const [name, fn] of cases) {
    if (skipped.has(name)) continue
    test(`${options.prefix ?? ''}${name}`, async () => {
      const subject = await make()
      try {
        await fn(subject)
      } finally {
        await subject.close?.()
      }
    })
  }
}

const STORAGE_CASES: Case[] = [
  [
    'get returns undefined for a missing record in every collection',
    async (s) => {
      equal(await s.get('facts', 'fact-0001'), undefined, 'missing fact')
      equal(await s.get('runbooks', 'nope'), undefined, 'missing runbook')
      equal(await s.get('contracts', 'nope.v1'), undefined, 'missing contract')
      equal(await s.get('artifacts', 'w/a'), undefined, 'missing artifact')
      equal(await s.get('meta', 'index'), undefined, 'missing meta')
    },
  ],
  [
    'every collection round-trips every field',
    async (s) => {
      const fact = sampleFact(7)
      await s.put('facts', fact.id, fact)
      await s.put('runbooks', sampleRunbook.slug, sampleRunbook)
      await s.put('contracts', sampleContract.id, sampleContract)
      await s.put('artifacts', 'audit/appsec-reviewer', sampleArtifact)
      await s.put('meta', 'index', '# Memory index\n\n- ü · line\n')
      equal(await s.get('facts', fact.id), fact, 'fact')
      equal(await s.get('runbooks', sampleRunbook.slug), sampleRunbook, 'runbook')
      equal(await s.get('contracts', sampleContract.id), sampleContract, 'contract')
      equal(await s.get('artifacts', 'audit/appsec-reviewer'), sampleArtifact, 'artifact')
      equal(await s.get('meta', 'index'), '# Memory index\n\n- ü · line\n', 'meta text')
    },
  ],
  [
    'a fact without optional fields round-trips without them',
    async (s) => {
      const { expires: _e, supersedes: _s, ...fact } = sampleFact(3, { type: 'glossary', body: 'Plain body.', tags: [] })
      await s.put('facts', fact.id, fact)
      const back = await s.get('facts', fact.id)
      equal(back, fact, 'fact without expires/supersedes')
      ok(back && !('expires' in back) && !('supersedes' in back), 'absent fields stay absent')
    },
  ],
  [
    'put replaces a record, and stored values are not shared with the caller',
    async (s) => {
      const fact = sampleFact(1)
      await s.put('facts', fact.id, fact)
      fact.title = 'mutated after put'
      equal((await s.get('facts', fact.id))?.title, sampleFact(1).title, 'a later mutation does not reach the store')
      await s.put('facts', fact.id, { ...sampleFact(1), status: 'superseded', supersededBy: 'fact-0002' })
      const back = await s.get('facts', fact.id)
      equal(back?.status, 'superseded', 'replaced')
      equal(back?.supersededBy, 'fact-0002', 'new field present')
    },
  ],
  [
    'list returns every record ordered by key, with a prefix filter',
    async (s) => {
      for (const n of [3, 1, 2]) await s.put('facts', sampleFact(n).id, sampleFact(n))
      equal((await s.list('facts')).map((f) => f.id), ['fact-0001', 'fact-0002', 'fact-0003'], 'ordered facts')
      for (const key of ['w10/b', 'w1/a', 'w1/c', 'w2/a']) {
        const [wave, agent] = key.split('/') as [string, string]
        await s.put('artifacts', key, { wave, agent, data: { summary: key } })
      }
      equal((await s.list('artifacts', { prefix: 'w1/' })).map((a) => a.data.summary), ['w1/a', 'w1/c'], 'prefix is exact: w1/ excludes w10/')
      equal((await s.list('runbooks')).length, 0, 'empty collection lists nothing')
    },
  ],
  [
    'delete removes a record and says whether there was one',
    async (s) => {
      await s.put('runbooks', sampleRunbook.slug, sampleRunbook)
      equal(await s.delete('runbooks', sampleRunbook.slug), true, 'deleted')
      equal(await s.get('runbooks', sampleRunbook.slug), undefined, 'gone')
      equal(await s.delete('runbooks', sampleRunbook.slug), false, 'second delete')
      equal((await s.list('runbooks')).length, 0, 'not listed')
    },
  ],
  [
    'revision is stable without writes and changes on every put and delete',
    async (s) => {
      const r0 = await s.revision('facts')
      equal(await s.revision('facts'), r0, 'stable')
      await s.put('facts', 'fact-0001', sampleFact(1))
      const r1 = await s.revision('facts')
      ok(r1 !== r0, 'changed by put')
      await s.put('facts', 'fact-0001', sampleFact(1, { title: 'replaced' }))
      const r2 = await s.revision('facts')
      ok(r2 !== r1, 'changed by a replacing put')
      await s.delete('facts', 'fact-0001')
      ok((await s.revision('facts')) !== r2, 'changed by delete')
    },
  ],
  [
    'changes lists the keys written since a revision',
    async (s) => {
      if (!s.flags.changeLog) {
        ok(s.changes === undefined, 'no changeLog flag, no changes()')
        return
      }
      await s.put('facts', 'fact-0001', sampleFact(1))
      const r1 = await s.revision('facts')
      await s.put('facts', 'fact-0002', sampleFact(2))
      await s.put('facts', 'fact-0001', sampleFact(1, { status: 'superseded' }))
      const keys = await s.changes!('facts', r1)
      ok(keys !== undefined, 'the log reaches back to r1')
      equal([...new Set(keys)].sort(), ['fact-0001', 'fact-0002'], 'keys since r1')
      equal(await s.changes!('facts', await s.revision('facts')), [], 'nothing since now')
      equal(await s.changes!('facts', 'not-a-revision'), undefined, 'an unknown token answers undefined')
    },
  ],
  [
    'exclusive runs sections one at a time, so read-modify-write loses nothing',
    async (s) => {
      await s.put('meta', 'counter', '0')
      const bump = () =>
        s.exclusive(async () => {
          const n = Number(await s.get('meta', 'counter'))
          await new Promise((r) => setTimeout(r, 1))
          await s.put('meta', 'counter', String(n + 1))
          return n + 1
        })
      const results = await Promise.all(Array.from({ length: 20 }, bump))
      equal(await s.get('meta', 'counter'), '20', 'twenty increments')
      equal([...results].sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1), 'each section saw the previous one')
    },
  ],
  [
    'exclusive returns the value, propagates the error and releases the section',
    async (s) => {
      equal(await s.exclusive(async () => 42), 42, 'value')
      let thrown: unknown
      try {
        await s.exclusive(async () => {
          throw new Error('boom')
        })
      } catch (error) {
        thrown = error
      }
      equal((thrown as Error | undefined)?.message, 'boom', 'error propagated')
      equal(await s.exclusive(async () => 'again'), 'again', 'released after an error')
    },
  ],
  [
    'events append in order and concurrent appends are all kept',
    async (s) => {
      const ev = (i: number): FoundryEvent => ({ ts: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`, kind: 'memory_search', data: { i } })
      await s.appendEvent(ev(0))
      await Promise.all(Array.from({ length: 50 }, (_, i) => s.appendEvent(ev(i + 1))))
      const events = await s.readEvents()
      equal(events.length, 51, 'all events')
      equal(events[0], ev(0), 'first event intact')
      equal(new Set(events.map((e) => e.data?.i)).size, 51, 'no duplicates, none lost')
    },
  ],
  [
    'events of any kind are kept and read back',
    async (s) => {
      const events: FoundryEvent[] = [
        { ts: '2026-01-01T00:00:00.000Z', kind: 'memory_write', data: { id: 'fact-0001' } },
        { ts: '2026-01-01T00:00:01.000Z', kind: 'marbles.run_started', data: { run: 'r1' } },
        { ts: '2026-01-01T00:00:02.000Z', kind: 'custom_kind_nobody_knows' },
      ]
      for (const e of events) await s.appendEvent(e)
      equal(await s.readEvents(), events, 'every kind, in order')
    },
  ],
  [
    'open collections keep a consumer\'s JSON records beside the kernel\'s',
    async (s) => {
      const run = { id: 'run-1', status: 'queued', steps: [{ name: 'a', ok: true }], attempts: 0, note: null, label: 'ü ✓' }
      await s.put('marbles.runs', 'run-1', run)
      await s.put('marbles.runs', 'nested/run-2', { id: 'run-2' })
      await s.put('other-tool.state', 'run-1', 'a plain string')
      equal(await s.get('marbles.runs', 'run-1'), run, 'round-trips every JSON type')
      equal(await s.get('other-tool.state', 'run-1'), 'a plain string', 'another consumer\'s collection is separate')
      equal(await s.get('marbles.runs', 'missing'), undefined, 'missing record')
      equal((await s.list('marbles.runs')).length, 2, 'listed')
      equal(await s.keys('marbles.runs'), ['nested/run-2', 'run-1'], 'keys, sorted')
      equal(await s.keys('marbles.runs', 'nested/'), ['nested/run-2'], 'keys by prefix')
      equal(await s.keys('facts'), [], 'no keys in an empty collection')
      equal(await s.list('marbles.runs', { prefix: 'nested/' }), [{ id: 'run-2' }], 'listed by prefix')
      equal((await s.list('facts')).length, 0, 'the kernel\'s collections are untouched')
      const r0 = await s.revision('marbles.runs')
      equal(await s.delete('marbles.runs', 'run-1'), true, 'deleted')
      ok((await s.revision('marbles.runs')) !== r0, 'revision changed')
      equal(await s.get('marbles.runs', 'run-1'), undefined, 'gone')
      ok(s.locate('marbles.runs', 'nested/run-2').includes('run-2'), 'located')
      for (const name of ['Marbles.runs', 'marbles', 'marbles/runs', '../x.y', 'a.b.c', '.runs']) {
        await rejects(() => s.put(name as 'x.y', 'k', {}), 'INVALID_INPUT', `collection ${name}`)
      }
      await rejects(() => s.put('marbles.runs', '../../x', {}), 'INVALID_INPUT', 'a key that leaves the collection')
    },
  ],
  [
    'relaxed writes round-trip like durable ones',
    async (s) => {
      await s.put('meta', 'retriever/x/head', 'cache text', { durability: 'relaxed' })
      await s.put('marbles.runs', 'r', { n: 1 }, { durability: 'relaxed' })
      equal(await s.get('meta', 'retriever/x/head'), 'cache text', 'meta')
      equal(await s.get('marbles.runs', 'r'), { n: 1 }, 'open collection')
      equal(await s.delete('meta', 'retriever/x/head', { durability: 'relaxed' }), true, 'relaxed delete')
    },
  ],
  [
    'a section that throws rolls back exactly when the store says it is transactional',
    async (s) => {
      await s.put('meta', 'kept', 'before')
      try {
        await s.exclusive(async () => {
          await s.put('meta', 'kept', 'inside')
          await s.put('facts', 'fact-0001', sampleFact(1))
          throw new Error('abort the section')
        })
      } catch {
        // expected
      }
      if (s.flags.transactional) {
        equal(await s.get('meta', 'kept'), 'before', 'rolled back')
        equal(await s.get('facts', 'fact-0001'), undefined, 'the new record rolled back')
      } else {
        equal(await s.get('meta', 'kept'), 'inside', 'a non-transactional store keeps what was written before the throw')
        equal((await s.get('facts', 'fact-0001'))?.id, 'fact-0001', 'and says so with transactional: false')
      }
    },
  ],
  [
    'a nested section is refused by a transactional store, and the outer one goes on',
    async (s) => {
      if (!s.flags.transactional) return // nesting is a programming error there (see Storage.exclusive)
      const outcome = await s.exclusive(async () => {
        await s.put('meta', 'outer', '1')
        await rejects(() => s.exclusive(async () => 'inner'), 'UNSUPPORTED', 'nested exclusive')
        await s.put('meta', 'outer', '2')
        return 'outer done'
      })
      equal(outcome, 'outer done', 'outer value')
      equal(await s.get('meta', 'outer'), '2', 'outer writes committed')
    },
  ],
  [
    'a log appends, reads from a cursor in pages, and tells where it ends',
    async (s) => {
      equal(await s.logEnd('marbles/run-1'), 0, 'a missing log ends at 0')
      equal(await s.readLog('marbles/run-1', 0), { entries: [], cursor: 0 }, 'a missing log reads empty')
      const first = await s.appendLog('marbles/run-1', ['one', '{"json":true}'])
      const end = await s.appendLog('marbles/run-1', ['three\nwith a newline', 'ünïcödé ✓', ''])
      ok(end > first && first > 0, 'cursors grow')
      equal(await s.logEnd('marbles/run-1'), end, 'logEnd is the last cursor')
      const all = await s.readLog('marbles/run-1', 0)
      equal(all.entries, ['one', '{"json":true}', 'three\nwith a newline', 'ünïcödé ✓', ''], 'every entry intact, in order')
      equal(all.cursor, end, 'read to the end')
      const page1 = await s.readLog('marbles/run-1', 0, { limit: 2 })
      equal(page1.entries, ['one', '{"json":true}'], 'first page')
      equal(page1.cursor, first, 'the first page ends where the first append did')
      const page2 = await s.readLog('marbles/run-1', page1.cursor, { limit: 2 })
      equal(page2.entries, ['three\nwith a newline', 'ünïcödé ✓'], 'second page')
      const rest = await s.readLog('marbles/run-1', page2.cursor)
      equal(rest, { entries: [''], cursor: end }, 'the rest')
      equal(await s.readLog('marbles/run-1', end), { entries: [], cursor: end }, 'nothing more at the end')
      equal(await s.readLog('marbles/run-2', 0), { entries: [], cursor: 0 }, 'logs are separate')
      await rejects(() => s.appendLog('../escape', ['x']), 'INVALID_INPUT', 'a log name that leaves the store')
    },
  ],
  [
    'concurrent log appends are all kept, each call\'s entries together',
    async (s) => {
      await Promise.all(Array.from({ length: 25 }, (_, i) => s.appendLog('journal', [`a${i}`, `b${i}`], { durability: i % 2 ? 'relaxed' : 'durable' })))
      const { entries } = await s.readLog('journal', 0)
      equal(entries.length, 50, 'fifty entries')
      for (let i = 0; i < 25; i++) equal(entries[entries.indexOf(`a${i}`) + 1], `b${i}`, `append ${i} kept together`)
    },
  ],
  [
    'collections and logs name everything a copy must walk',
    async (s) => {
      equal(await s.collections(), [], 'a new store holds no collection')
      equal(await s.logs(), [], 'and no log')
      await s.put('facts', 'fact-0001', sampleFact(1))
      await s.put('marbles.runs', 'r1', { id: 'r1' })
      await s.put('meta', 'index', '# index')
      await s.appendLog('marbles/r1', ['x'])
      await s.appendLog('other/log', ['y'])
      equal(await s.collections(), ['facts', 'marbles.runs', 'meta'], 'collections with records, sorted')
      equal(await s.logs(), ['marbles/r1', 'other/log'], 'logs, sorted')
      equal(await s.logs('marbles/'), ['marbles/r1'], 'logs by prefix')
      await s.delete('marbles.runs', 'r1')
      equal(await s.collections(), ['facts', 'meta'], 'an emptied collection is no longer named')
    },
  ],
  [
    'keys that could leave the store are refused with INVALID_INPUT',
    async (s) => {
      for (const [collection, key] of [
        ['artifacts', '../escape'],
        ['artifacts', 'w/../../x'],
        ['artifacts', '/etc/passwd'],
        ['artifacts', '../w/a'],
        ['artifacts', 'w/..'],
        ['meta', '../config'],
        ['meta', 'a/../../b'],
        ['runbooks', '../x'],
        ['facts', 'fact-0001/../../x'],
        ['contracts', '..'],
      ] as const) {
        await rejects(() => s.put(collection, key, (collection === 'meta' ? 'x' : {}) as never), 'INVALID_INPUT', `put ${collection} ${key}`)
        await rejects(() => s.get(collection, key), 'INVALID_INPUT', `get ${collection} ${key}`)
      }
    },
  ],
  [
    'ids past fact-9999 keep working and sort numerically',
    async (s) => {
      for (const n of [9999, 10000, 10001]) await s.put('facts', sampleFact(n).id, sampleFact(n))
      equal((await s.get('facts', 'fact-10000'))?.id, 'fact-10000', 'five-digit id')
      equal(new Set((await s.list('facts')).map((f) => f.id)), new Set(['fact-9999', 'fact-10000', 'fact-10001']), 'listed')
    },
  ],
  [
    'meta holds nested names and large texts',
    async (s) => {
      const big = 'x'.repeat(2_000_000)
      await s.put('meta', 'retriever/minisearch/snapshot', big)
      equal((await s.get('meta', 'retriever/minisearch/snapshot'))?.length, big.length, 'two megabytes back')
      equal((await s.list('meta', { prefix: 'retriever/' })).length, 1, 'listed by prefix')
    },
  ],
  [
    'locate names each record distinctly',
    async (s) => {
      const a = s.locate('facts', 'fact-0001')
      const b = s.locate('facts', 'fact-0002')
      ok(a.length > 0 && a !== b, 'distinct, non-empty locations')
      ok(s.locate('artifacts', 'audit/appsec-reviewer').includes('appsec-reviewer'), 'artifact location names the agent')
    },
  ],
]

export const STORAGE_CASE_NAMES = STORAGE_CASES.map(([name]) => name)
