import type { Storage } from '../storage.js'
import { skipLine, skipsOf, type TestFn } from './register.js'
import { BASIC_CASES } from './storage/basic.js'
import { BATCH_CASES } from './storage/batch.js'
import { CHANGE_LOG_CASES } from './storage/change-log.js'
import type { Place, StorageGroup, StorageSuiteOptions } from './storage/group.js'
import { LOG_CASES } from './storage/logs.js'
import { MULTI_PROCESS_CASES } from './storage/processes.js'
import { REOPEN_CASES } from './storage/reopen.js'
import { REVIEW_CASES } from './storage/review.js'
import { TRANSACTIONAL_CASES } from './storage/transactional.js'
import { TRANSFER_CASES } from './storage/transfer.js'

const needsPlace = (o: StorageSuiteOptions) =>
  o.fresh && o.open ? undefined : 'no fresh and open options: pass them to open a second instance on the same data'

/** The cases by what they need, keyv-style: a group runs when the adapter passed its options and its stores declare its flag. */
export const STORAGE_GROUPS: readonly StorageGroup[] = [
  { name: 'basic', cases: BASIC_CASES },
  { name: 'batch', cases: BATCH_CASES },
  { name: 'logs', cases: LOG_CASES },
  {
    name: 'changeLog',
    cases: CHANGE_LOG_CASES,
    unfit: (s) => (s.flags.changeLog ? undefined : 'flags.changeLog is false'),
  },
  {
    name: 'transactional',
    cases: TRANSACTIONAL_CASES,
    unfit: (s) =>
      s.flags.transactional ? undefined : 'flags.transactional is false: nesting is a programming error there',
  },
  {
    name: 'reopen',
    cases: REOPEN_CASES,
    placed: true,
    unavailable: needsPlace,
    unfit: (s) => (s.flags.persistent ? undefined : 'flags.persistent is false'),
  },
  { name: 'transfer', cases: TRANSFER_CASES },
  { name: 'review', cases: REVIEW_CASES },
  {
    name: 'multiProcess',
    cases: MULTI_PROCESS_CASES,
    placed: true,
    unavailable: (o) => needsPlace(o) ?? (o.spawn ? undefined : 'no spawn option: pass one to start child processes'),
    unfit: (s) => (s.flags.multiProcess ? undefined : 'flags.multiProcess is false'),
  },
]

/**
 * Every behaviour a `Storage` owes the kernel, in groups (`STORAGE_GROUPS`). `make` returns a new,
 * empty store for each case; the suite closes it afterwards. Register with
 * `storageSuite(test, () => myStorage(...))`; add `fresh` and `open` for the reopen group, and
 * `spawn` for the multiProcess group. A case that does not run is printed with the reason.
 */
export function storageSuite(
  test: TestFn,
  make: () => Storage | Promise<Storage>,
  options: StorageSuiteOptions = {},
): void {
  const log = options.log ?? ((line: string) => console.log(line))
  const skipped = skipsOf(STORAGE_CASE_NAMES, options)
  for (const group of STORAGE_GROUPS) {
    const unavailable = group.unavailable?.(options)
    for (const [name, fn] of group.cases) {
      const reason = skipped.get(name) ?? unavailable
      if (reason !== undefined) {
        log(skipLine(options, name, reason))
        continue
      }
      test(`${options.prefix ?? ''}${name}`, async () => {
        const target = group.placed ? await options.fresh!() : ''
        const storage = group.placed ? await options.open!(target) : await make()
        const place: Place = {
          target,
          options,
          another: async () => make(),
          reopen: async () => {
            if (!group.placed) throw new Error(`the ${group.name} group has no place to reopen`)
            return options.open!(target)
          },
        }
        try {
          const unfit = group.unfit?.(storage)
          if (unfit !== undefined) log(skipLine(options, name, unfit))
          else await fn(storage, place)
        } finally {
          await storage.close?.()
        }
      })
    }
  }
}

/** Every case name, for `skip`. */
export const STORAGE_CASE_NAMES = STORAGE_GROUPS.flatMap((group) => group.cases.map(([name]) => name))
