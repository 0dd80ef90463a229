import { createKernel } from '../../kernel.js'
import type { Storage } from '../../storage.js'
import { equal, ok, rejects } from '../expect.js'
import type { StorageCase } from './group.js'

const cents = { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' as const }
const invoices = {
  title: 'Invoices are numbered per year',
  body: 'INV-2026-0001, then on.',
  type: 'convention' as const,
  source: 'conversation',
}
const timeout = (seconds: number) => ({
  title: `The request timeout is ${seconds} seconds`,
  body: 'Why: slow partners.\nHow to apply: set it on the client.',
  type: 'decision' as const,
  confidence: 'high' as const,
})

const kernelOn = (s: Storage, review?: object) =>
  createKernel({ storage: s, now: () => new Date('2026-06-01T10:00:00Z'), ...(review && { config: { review } }) })

/** The review queue over the store: proposals kept apart from the facts, and decided through the memory write path. */
export const REVIEW_CASES: StorageCase[] = [
  [
    'a proposed fact waits with its author and source, out of search, the index, the counts and dedupe',
    async (s) => {
      const k = kernelOn(s)
      await k.memory.write(cents)
      const { results } = await k.review.propose([invoices, timeout(30)], { author: 'capture', origin: 'session-1' })
      equal(
        results,
        [
          { action: 'proposed', id: 'proposal-0001' },
          { action: 'proposed', id: 'proposal-0002' },
        ],
        'queued, numbered',
      )
      const { proposals } = await k.review.list()
      equal(
        proposals.map((p) => [p.id, p.status, p.author, p.origin, p.fact.source, p.fact.title]),
        [
          ['proposal-0001', 'proposed', 'capture', 'session-1', 'conversation', invoices.title],
          ['proposal-0002', 'proposed', 'capture', 'session-1', undefined, timeout(30).title],
        ],
        'listed with who and where',
      )
      equal((await k.memory.search({ query: 'invoices numbered year' })).hits.length, 0, 'not in search')
      ok(!(await k.memory.readIndex()).includes('Invoices'), 'not in the index')
      equal(await k.memory.activeCount(), 1, 'not counted')
      equal(
        (await k.memory.list({ status: 'all' })).map((f) => f.id),
        ['fact-0001'],
        'not a fact',
      )
      const written = await k.memory.write(invoices)
      equal([written.action, written.id], ['created', 'fact-0002'], 'a waiting proposal is no dedupe candidate')
    },
  ],
  [
    'accept writes through the memory write path: a new value supersedes, an identical fact is a duplicate',
    async (s) => {
      const k = kernelOn(s)
      await k.memory.write(timeout(30))
      await k.memory.write(cents)
      await k.review.propose([timeout(60), cents], { author: 'capture' })
      const accepted = await k.review.accept('proposal-0001')
      equal(
        [accepted.action, accepted.id, accepted.supersedes, accepted.proposal],
        ['created', 'fact-0003', 'fact-0001', 'proposal-0001'],
        'supersedes as memory_write does',
      )
      ok(accepted.text.startsWith('created: fact-0003 (supersedes fact-0001)'), "memory_write's answer")
      equal((await k.memory.get('fact-0003')).author, 'capture', 'the proposer is the author')
      const same = await k.review.accept('proposal-0002')
      equal([same.action, same.id], ['duplicate', 'fact-0002'], 'dedupe')
      equal(
        (await k.review.list({ status: 'accepted' })).proposals.map((p) => [p.id, p.factId]),
        [
          ['proposal-0001', 'fact-0003'],
          ['proposal-0002', 'fact-0002'],
        ],
        'each names its fact',
      )
      equal((await k.review.list()).proposals.length, 0, 'the queue is empty')
      await rejects(() => k.review.accept('proposal-0001'), 'INVALID_INPUT', 'accepted twice')
      await rejects(() => k.review.accept('proposal-0099'), 'NOT_FOUND', 'an unknown proposal')
    },
  ],
  [
    'reject keeps the proposal and its reason and writes nothing; edit changes a waiting proposal, checked',
    async (s) => {
      const k = kernelOn(s)
      await k.review.propose([cents, invoices])
      const rejected = await k.review.reject('proposal-0001', 'We store decimals')
      equal(
        [rejected.proposal.status, rejected.proposal.reason],
        ['rejected', 'We store decimals'],
        'rejected with its reason',
      )
      await rejects(
        () => k.review.edit('proposal-0001', { body: 'x' }),
        'INVALID_INPUT',
        'a rejected proposal cannot be edited',
      )
      const edited = await k.review.edit('proposal-0002', {
        body: 'INV-2026-0001, reset each January.',
        tags: ['billing'],
      })
      equal(
        [edited.proposal.status, edited.proposal.fact.body, edited.proposal.fact.tags],
        ['proposed', 'INV-2026-0001, reset each January.', ['billing']],
        'edited, still waiting',
      )
      const bad = await rejects(
        () => k.review.edit('proposal-0002', { type: 'opinion' }),
        'INVALID_INPUT',
        'a bad type',
      )
      ok(bad.message.includes('type'), `names the field: ${bad.message}`)
      await rejects(() => k.review.edit('proposal-0002', { colour: 'red' }), 'INVALID_INPUT', 'an unknown field')
      equal((await k.memory.list({ status: 'all' })).length, 0, 'nothing written')
      const accepted = await k.review.accept('proposal-0002')
      equal((await k.memory.get(accepted.id)).body, 'INV-2026-0001, reset each January.', 'the edit is what is written')
    },
  ],
  [
    'propose checks every fact before storing any, and queues a fact identical to a waiting one once',
    async (s) => {
      const k = kernelOn(s)
      const bad = await rejects(
        () => k.review.propose([cents, { title: 'No body', type: 'convention' }]),
        'INVALID_INPUT',
        'a fact without body',
      )
      ok(bad.message.includes('facts[1]') && bad.message.includes('body'), `names the fact and field: ${bad.message}`)
      equal((await k.review.list({ status: 'all' })).proposals.length, 0, 'nothing stored')
      await k.review.propose([cents])
      const again = await k.review.propose([{ ...cents, title: 'money is stored in integer cents.' }, invoices])
      equal(
        again.results,
        [
          { action: 'duplicate', id: 'proposal-0001' },
          { action: 'proposed', id: 'proposal-0002' },
        ],
        'the same fact once',
      )
    },
  ],
  [
    'review.autoAccept writes the types and confidences it names at once; the rest waits',
    async (s) => {
      const k = kernelOn(s, { autoAccept: { types: ['convention'], minConfidence: 'medium' } })
      const { results } = await k.review.propose([cents, { ...invoices, confidence: 'low' }, timeout(30)])
      equal(
        results,
        [
          { action: 'accepted', id: 'fact-0001', factId: 'fact-0001' },
          { action: 'proposed', id: 'proposal-0001' },
          { action: 'proposed', id: 'proposal-0002' },
        ],
        'one written, two queued',
      )
      equal(
        (await k.memory.list()).map((f) => f.title),
        [cents.title],
        'written as a fact',
      )
    },
  ],
]
