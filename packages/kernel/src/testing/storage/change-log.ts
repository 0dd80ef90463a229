import { equal, ok } from '../expect.js'
import { sampleFact } from '../fixtures.js'
import type { StorageCase } from './group.js'

/** With `flags.changeLog`: `changes()` answers the keys written since a revision. */
export const CHANGE_LOG_CASES: StorageCase[] = [
  [
    'changes lists the keys written since a revision',
    async (s) => {
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
    'changes lists every key a putMany wrote',
    async (s) => {
      await s.put('facts', 'fact-0001', sampleFact(1))
      const r1 = await s.revision('facts')
      await s.putMany(
        'facts',
        [2, 3, 4].map((n) => ({ key: sampleFact(n).id, value: sampleFact(n) })),
      )
      ok((await s.revision('facts')) !== r1, 'the revision moved')
      const keys = await s.changes!('facts', r1)
      ok(keys !== undefined, 'the log reaches back to r1')
      equal([...new Set(keys)].sort(), ['fact-0002', 'fact-0003', 'fact-0004'], 'every key of the batch')
      await s.put('facts', 'fact-0005', sampleFact(5))
      equal(
        await s.changes!('facts', r1).then((k) => k && [...new Set(k)].sort()),
        ['fact-0002', 'fact-0003', 'fact-0004', 'fact-0005'],
        'and a write after it',
      )
    },
  ],
]
