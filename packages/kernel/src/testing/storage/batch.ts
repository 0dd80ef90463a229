import { createKernel } from '../../kernel.js'
import type { Kernel } from '../../kernel.js'
import type { WriteResult } from '../../memory/service.js'
import type { FactInput } from '../../schema/fact.js'
import { equal, ok, rejects } from '../expect.js'
import type { StorageCase } from './group.js'

const DEPLOY_RULE = 'How to apply: check the release calendar first.'

/** One fact before the batch, then a batch whose later facts duplicate and supersede earlier ones. */
const BEFORE: FactInput = { title: 'API timeout is 30 seconds', body: 'Set in the gateway.', type: 'constraint' }
const BATCH: FactInput[] = [
  {
    title: 'Deploys need 2 approvals',
    body: `Two reviewers sign off. ${DEPLOY_RULE}`,
    type: 'convention',
    tags: ['deploy'],
  },
  { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' },
  {
    title: 'Deploys need 2 approvals',
    body: `Two reviewers sign off. ${DEPLOY_RULE}`,
    type: 'convention',
    tags: ['deploy'],
  }, // a duplicate of [0]
  { title: 'Deploys need 3 approvals', body: `Three reviewers sign off. ${DEPLOY_RULE}`, type: 'convention' }, // supersedes [0]
  { title: 'API timeout is 60 seconds', body: 'Raised for slow exports.', type: 'constraint' }, // supersedes the fact before
  { title: 'Deploys need 4 approvals', body: `Four reviewers. ${DEPLOY_RULE}`, type: 'convention', supersede: false }, // keeps [3], names it similar
  {
    title: 'Money is stored as decimals',
    body: 'Since the ledger moved.',
    type: 'convention',
    supersedes: 'fact-0003',
  }, // names [1]
]

/** What a write result says, without the index figures (a batch's are taken after the whole batch). */
const outcome = (r: WriteResult) => ({
  action: r.action,
  id: r.id,
  supersedes: r.supersedes,
  similar: r.similar?.map((s) => s.id),
})
/** Every fact as stored, without the time it was written. */
const stored = async (kernel: Kernel) =>
  (await kernel.memory.list({ status: 'all' })).map(({ created: _c, ...fact }) => fact)

/** The memory service's batch (`memory.writeMany`) over the store: the rules of single writes, one section. */
export const BATCH_CASES: StorageCase[] = [
  [
    'a batch of facts gets what writing them one after another gets: ids, duplicates, supersedes, similar, in order',
    async (s, place) => {
      const other = await place.another()
      const batched = createKernel({ storage: s })
      const single = createKernel({ storage: other })
      try {
        await batched.memory.write(BEFORE)
        await single.memory.write(BEFORE)
        const many = await batched.memory.writeMany(BATCH)
        const one: WriteResult[] = []
        for (const input of BATCH) one.push(await single.memory.write(input))
        equal(many.results.map(outcome), one.map(outcome), 'the same result per fact')
        equal(
          many.results.map((r) => [r.action, r.id, r.supersedes]),
          [
            ['created', 'fact-0002', undefined],
            ['created', 'fact-0003', undefined],
            ['duplicate', 'fact-0002', undefined],
            ['created', 'fact-0004', 'fact-0002'],
            ['created', 'fact-0005', 'fact-0001'],
            ['created', 'fact-0006', undefined],
            ['created', 'fact-0007', 'fact-0003'],
          ],
          'later facts of the batch see the earlier ones',
        )
        equal(await stored(batched), await stored(single), 'the same facts stored, statuses and links included')
        equal(many.index, one[one.length - 1]!.index, 'the index figures after the batch')
        const lines = many.text.split('\n')
        equal(
          lines.slice(0, BATCH.length),
          one.map((r) => r.text.split('\n')[0]!),
          "one line a fact, in the single write's wording",
        )
        ok(lines[BATCH.length]!.startsWith('Index: '), 'then the index line')
        equal(
          (await batched.memory.search({ query: 'approvals' })).hits.map((h) => h.fact.id).sort(),
          ['fact-0004', 'fact-0006'],
          'search finds the active facts of the batch',
        )
        const index = await batched.memory.readIndex()
        ok(
          index.includes('fact-0007') && !index.includes('fact-0003 '),
          'the index lists the batch, not what it superseded',
        )
      } finally {
        await batched.close()
        await single.close()
        await other.close?.()
      }
    },
  ],
  [
    'a batch with one fact the kernel refuses writes nothing and names its position and field',
    async (s) => {
      const kernel = createKernel({ storage: s })
      try {
        const good = BATCH[1]!
        const revision = await s.revision('facts')
        const shape = await rejects(
          () => kernel.memory.writeMany([good, { title: 'No body', type: 'domain' }]),
          'INVALID_INPUT',
          'a fact without a body',
        )
        ok(
          shape.message.includes('facts[1]') && shape.message.includes('body'),
          `names facts[1] and body: ${shape.message}`,
        )
        const rule = await rejects(
          () => kernel.memory.writeMany([good, { title: 'We use Flyway', body: 'For migrations.', type: 'decision' }]),
          'INVALID_INPUT',
          'a decision without Why',
        )
        ok(rule.message.includes('facts[1]: body of a decision'), `names facts[1] and its body: ${rule.message}`)
        const plan = await rejects(
          () => kernel.memory.writeMany([good, { ...BEFORE, supersedes: 'fact-0099' }]),
          'INVALID_INPUT',
          'supersedes an unknown fact',
        )
        ok(
          plan.message.startsWith('facts[1]: supersedes names fact-0099'),
          `names facts[1] and supersedes: ${plan.message}`,
        )
        await rejects(() => kernel.memory.writeMany([]), 'INVALID_INPUT', 'an empty batch')
        await rejects(() => kernel.memory.writeMany(good), 'INVALID_INPUT', 'not an array')
        equal(await s.revision('facts'), revision, 'nothing was stored')
        equal(await kernel.memory.list({ status: 'all' }), [], 'no fact')
        equal(
          (await kernel.memory.write(good)).id,
          'fact-0001',
          'the next write takes the first id: nothing of a refused batch stays behind',
        )
      } finally {
        await kernel.close()
      }
    },
  ],
  [
    'a batch of duplicates only writes nothing and answers each with the fact it duplicates',
    async (s) => {
      const kernel = createKernel({ storage: s })
      try {
        await kernel.memory.writeMany([BATCH[0]!, BATCH[1]!])
        const revision = await s.revision('facts')
        const again = await kernel.memory.writeMany([BATCH[1]!, BATCH[0]!])
        equal(
          again.results.map((r) => [r.action, r.id]),
          [
            ['duplicate', 'fact-0002'],
            ['duplicate', 'fact-0001'],
          ],
          'each names its fact',
        )
        equal(await s.revision('facts'), revision, 'nothing stored')
        equal(again.index.total, 2, 'the index figures as they are')
      } finally {
        await kernel.close()
      }
    },
  ],
]
