import { createKernel } from '../../kernel.js'
import { equal, ok } from '../expect.js'
import { sampleFact } from '../fixtures.js'
import { dumpStorage, fillSample } from '../sample-data.js'
import type { StorageCase } from './group.js'

/** With `fresh` and `open`, on a persistent store: a new instance on the same data sees it all. */
export const REOPEN_CASES: StorageCase[] = [
  [
    'a new instance on the same data reads back every record, event and log',
    async (s, place) => {
      await fillSample(s)
      const before = await dumpStorage(s)
      await s.close?.()
      const again = await place.reopen()
      try {
        equal(await dumpStorage(again), before, 'the same data')
      } finally {
        await again.close?.()
      }
    },
  ],
  [
    'records a putMany stored are read back by a new instance',
    async (s, place) => {
      const facts = Array.from({ length: 20 }, (_, i) => sampleFact(i + 1))
      await s.putMany(
        'facts',
        facts.map((fact) => ({ key: fact.id, value: fact })),
      )
      await s.close?.()
      const again = await place.reopen()
      try {
        equal(await again.list('facts'), facts, 'every record, as written')
      } finally {
        await again.close?.()
      }
    },
  ],
  [
    'a fact written for an author keeps it across a reload; one written without stays without',
    async (s, place) => {
      const first = createKernel({ storage: s })
      await first.memory.write(
        { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' },
        { author: 'walt' },
      )
      await first.memory.write({ title: 'Invoices are numbered per year', body: 'INV-2026-0001.', type: 'convention' })
      await first.close()
      const second = createKernel({ storage: await place.reopen() })
      try {
        const [a, b] = await second.memory.list({})
        equal([a?.id, a?.source, a?.author], ['fact-0001', 'conversation', 'walt'], 'the author beside the source')
        equal([b?.id, b !== undefined && 'author' in b], ['fact-0002', false], 'no author')
      } finally {
        await second.close()
      }
    },
  ],
  [
    'a forgotten fact keeps its status, reason and time across a reload, out of search and the index',
    async (s, place) => {
      const first = createKernel({ storage: s })
      await first.memory.write({ title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' })
      await first.memory.write({
        title: 'Invoices are numbered per year',
        body: 'INV-2026-0001, in integer cents.',
        type: 'convention',
      })
      const { forgotten } = await first.memory.forget('fact-0001', 'We store decimals now')
      await first.close()
      const second = createKernel({ storage: await place.reopen() })
      try {
        const kept = await second.memory.list({ status: 'forgotten' })
        equal(
          kept.map((f) => [f.id, f.forgotten, f.forgottenReason]),
          [['fact-0001', forgotten, 'We store decimals now']],
          'forgotten, with reason and time',
        )
        equal(
          (await second.memory.search({ query: 'integer cents' })).hits.map((h) => h.fact.id),
          ['fact-0002'],
          'out of search',
        )
        ok(!(await second.memory.readIndex()).includes('fact-0001'), 'out of the index')
        equal(await second.memory.activeCount(), 1, 'one active fact')
      } finally {
        await second.close()
      }
    },
  ],
  [
    'the review queue survives a reload: waiting, accepted and rejected proposals as they were',
    async (s, place) => {
      const first = createKernel({ storage: s })
      await first.review.propose(
        [
          { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' },
          { title: 'Invoices are numbered per year', body: 'INV-2026-0001.', type: 'convention' },
          { title: 'Refunds need two approvals', body: 'Why: fraud.\nHow to apply: ask finance.', type: 'decision' },
        ],
        { author: 'capture' },
      )
      await first.review.accept('proposal-0001')
      await first.review.reject('proposal-0002', 'Not true')
      const before = (await first.review.list({ status: 'all' })).proposals
      await first.close()
      const second = createKernel({ storage: await place.reopen() })
      try {
        equal((await second.review.list({ status: 'all' })).proposals, before, 'every proposal, as it was')
        equal(
          (await second.review.list()).proposals.map((p) => p.id),
          ['proposal-0003'],
          'one waiting',
        )
        equal(
          (
            await second.review.propose([
              { title: 'Tax is computed per line', body: 'Not per invoice.', type: 'convention' },
            ])
          ).results[0]?.id,
          'proposal-0004',
          'numbering goes on',
        )
      } finally {
        await second.close()
      }
    },
  ],
  [
    "two instances open at once each see the other's records, revisions and log entries",
    async (a, place) => {
      const b = await place.reopen()
      try {
        await a.put('meta', 'index', 'from a')
        const revision = await b.revision('meta')
        equal(await b.get('meta', 'index'), 'from a', "b reads a's write")
        await b.put('meta', 'index', 'from b')
        equal(await a.get('meta', 'index'), 'from b', "a reads b's write")
        ok((await a.revision('meta')) !== revision, 'a sees the revision move')
        await a.appendLog('shared/log', ['one'])
        const end = await b.appendLog('shared/log', ['two'])
        equal(await a.readLog('shared/log', 0), { entries: ['one', 'two'], cursor: end }, 'one log, in order')
      } finally {
        await b.close?.()
      }
    },
  ],
]
