import { memoryStorage } from '../../memory-storage.js'
import { copyStorage } from '../../transfer.js'
import { equal, ok } from '../expect.js'
import { dumpStorage, fillSample } from '../sample-data.js'
import type { StorageCase } from './group.js'

/** A dump without the logs' cursors: each store counts its own (entries, bytes), the entries must match. */
const portable = async (storage: Parameters<typeof dumpStorage>[0]) => {
  const dump = await dumpStorage(storage)
  return { ...dump, logs: dump.logs.map(({ log, entries }) => ({ log, entries })) }
}

/** Lossless copies (`copyStorage`, what `foundry export` and `import` run) into and out of the store. */
export const TRANSFER_CASES: StorageCase[] = [
  [
    'memory → this store → memory keeps every field of every record, log and event',
    async (s) => {
      const source = memoryStorage()
      await fillSample(source)
      const before = await portable(source)
      ok(
        before.facts.some((f) => f.status === 'superseded' && f.supersededBy) &&
          before.events.length > 5 &&
          before.logs[0]?.entries.length === 4,
        'the sample holds a supersedes chain, events and a log',
      )
      const report = await copyStorage(source, s)
      equal(
        report,
        {
          facts: before.facts.length,
          runbooks: 2,
          contracts: 1,
          artifacts: 2,
          meta: 1,
          events: before.events.length,
          open: { 'marbles.runs': 2 },
          logEntries: 4,
        },
        'the report',
      )
      equal(await portable(s), before, 'the store holds the same')
      const back = memoryStorage()
      await copyStorage(s, back)
      equal(await portable(back), before, 'and gives back the same')
    },
  ],
  [
    'export → import → export gives identical content',
    async (first, place) => {
      await fillSample(first)
      const exported = memoryStorage()
      await copyStorage(first, exported)
      const second = await place.another()
      try {
        await copyStorage(exported, second)
        const again = memoryStorage()
        await copyStorage(second, again)
        equal(await portable(again), await portable(exported), 'export, import, export')
        equal(await portable(second), await portable(first), 'the two stores hold the same')
      } finally {
        await second.close?.()
      }
    },
  ],
]
