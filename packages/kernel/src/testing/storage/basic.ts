import { equal, ok, rejects } from '../expect.js'
import { sampleArtifact, sampleContract, sampleFact, sampleRunbook } from '../fixtures.js'
import type { StorageCase } from './group.js'

/** What every storage does: records, revisions, the exclusive section, keys it refuses. */
export const BASIC_CASES: StorageCase[] = [
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
      const {
        expires: _e,
        supersedes: _s,
        ...fact
      } = sampleFact(3, { type: 'glossary', body: 'Plain body.', tags: [] })
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
    'putMany stores every record, in or out of a section; a key given twice keeps its last value; a bad key writes nothing',
    async (s) => {
      const facts = [3, 1, 2].map((n) => sampleFact(n))
      await s.putMany(
        'facts',
        facts.map((fact) => ({ key: fact.id, value: fact })),
      )
      equal(
        (await s.list('facts')).map((f) => f.id),
        ['fact-0001', 'fact-0002', 'fact-0003'],
        'every record stored',
      )
      equal(await s.get('facts', 'fact-0003'), sampleFact(3), 'each round-trips')
      const later = { ...sampleFact(1), status: 'superseded' as const, supersededBy: 'fact-0004' }
      await s.exclusive(() =>
        s.putMany('facts', [
          { key: 'fact-0001', value: sampleFact(1, { title: 'first' }) },
          { key: 'fact-0004', value: sampleFact(4) },
          { key: 'fact-0001', value: later },
        ]),
      )
      equal(await s.get('facts', 'fact-0001'), later, 'the last value of a key given twice')
      equal(await s.get('facts', 'fact-0004'), sampleFact(4), 'written inside a section')
      await s.putMany(
        'meta',
        [
          { key: 'batch/a', value: 'a' },
          { key: 'batch/b', value: 'b' },
        ],
        { durability: 'relaxed' },
      )
      equal(await s.keys('meta', 'batch/'), ['batch/a', 'batch/b'], 'relaxed records too')
      await s.putMany('facts', [])
      await rejects(
        () =>
          s.putMany('facts', [
            { key: 'fact-0009', value: sampleFact(9) },
            { key: '../escape', value: sampleFact(10) },
          ]),
        'INVALID_INPUT',
        'a bad key',
      )
      equal(await s.get('facts', 'fact-0009'), undefined, 'nothing of a refused batch is stored')
    },
  ],
  [
    'list returns every record ordered by key, with a prefix filter',
    async (s) => {
      for (const n of [3, 1, 2]) await s.put('facts', sampleFact(n).id, sampleFact(n))
      equal(
        (await s.list('facts')).map((f) => f.id),
        ['fact-0001', 'fact-0002', 'fact-0003'],
        'ordered facts',
      )
      for (const key of ['w10/b', 'w1/a', 'w1/c', 'w2/a']) {
        const [wave, agent] = key.split('/') as [string, string]
        await s.put('artifacts', key, { wave, agent, data: { summary: key } })
      }
      equal(
        (await s.list('artifacts', { prefix: 'w1/' })).map((a) => a.data.summary),
        ['w1/a', 'w1/c'],
        'prefix is exact: w1/ excludes w10/',
      )
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
      equal(
        [...results].sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i + 1),
        'each section saw the previous one',
      )
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
    "open collections keep a consumer's JSON records beside the kernel's",
    async (s) => {
      const run = {
        id: 'run-1',
        status: 'queued',
        steps: [{ name: 'a', ok: true }],
        attempts: 0,
        note: null,
        label: 'ü ✓',
      }
      await s.put('marbles.runs', 'run-1', run)
      await s.put('marbles.runs', 'nested/run-2', { id: 'run-2' })
      await s.put('other-tool.state', 'run-1', 'a plain string')
      equal(await s.get('marbles.runs', 'run-1'), run, 'round-trips every JSON type')
      equal(await s.get('other-tool.state', 'run-1'), 'a plain string', "another consumer's collection is separate")
      equal(await s.get('marbles.runs', 'missing'), undefined, 'missing record')
      equal((await s.list('marbles.runs')).length, 2, 'listed')
      equal(await s.keys('marbles.runs'), ['nested/run-2', 'run-1'], 'keys, sorted')
      equal(await s.keys('marbles.runs', 'nested/'), ['nested/run-2'], 'keys by prefix')
      equal(await s.keys('facts'), [], 'no keys in an empty collection')
      equal(await s.list('marbles.runs', { prefix: 'nested/' }), [{ id: 'run-2' }], 'listed by prefix')
      equal((await s.list('facts')).length, 0, "the kernel's collections are untouched")
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
        equal(
          await s.get('meta', 'kept'),
          'inside',
          'a non-transactional store keeps what was written before the throw',
        )
        equal((await s.get('facts', 'fact-0001'))?.id, 'fact-0001', 'and says so with transactional: false')
      }
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
        await rejects(
          () => s.put(collection, key, (collection === 'meta' ? 'x' : {}) as never),
          'INVALID_INPUT',
          `put ${collection} ${key}`,
        )
        await rejects(() => s.get(collection, key), 'INVALID_INPUT', `get ${collection} ${key}`)
      }
    },
  ],
  [
    'ids past fact-9999 keep working and sort numerically',
    async (s) => {
      for (const n of [9999, 10000, 10001]) await s.put('facts', sampleFact(n).id, sampleFact(n))
      equal((await s.get('facts', 'fact-10000'))?.id, 'fact-10000', 'five-digit id')
      equal(
        new Set((await s.list('facts')).map((f) => f.id)),
        new Set(['fact-9999', 'fact-10000', 'fact-10001']),
        'listed',
      )
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
      ok(
        s.locate('artifacts', 'audit/appsec-reviewer').includes('appsec-reviewer'),
        'artifact location names the agent',
      )
    },
  ],
  [
    'changes() is there exactly when flags.changeLog says so',
    async (s) => {
      equal(typeof s.changes, s.flags.changeLog ? 'function' : 'undefined', `flags.changeLog is ${s.flags.changeLog}`)
    },
  ],
]
