import { equal, rejects } from '../expect.js'
import type { StorageCase } from './group.js'

/** With `flags.transactional`: sections refuse to nest (rollback itself is checked in basic, both ways). */
export const TRANSACTIONAL_CASES: StorageCase[] = [
  [
    'a nested section is refused by a transactional store, and the outer one goes on',
    async (s) => {
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
]
