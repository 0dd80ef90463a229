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
]
