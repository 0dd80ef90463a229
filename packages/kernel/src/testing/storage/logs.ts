import type { FoundryEvent } from '../../schema/event.js'
import { equal, ok, rejects } from '../expect.js'
import { sampleFact } from '../fixtures.js'
import type { StorageCase } from './group.js'

/** Events and named logs, and the names a copy walks. */
export const LOG_CASES: StorageCase[] = [
  [
    'events append in order and concurrent appends are all kept',
    async (s) => {
      const ev = (i: number): FoundryEvent => ({
        ts: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
        kind: 'memory_search',
        data: { i },
      })
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
    'a log appends, reads from a cursor in pages, and tells where it ends',
    async (s) => {
      equal(await s.logEnd('marbles/run-1'), 0, 'a missing log ends at 0')
      equal(await s.readLog('marbles/run-1', 0), { entries: [], cursor: 0 }, 'a missing log reads empty')
      const first = await s.appendLog('marbles/run-1', ['one', '{"json":true}'])
      const end = await s.appendLog('marbles/run-1', ['three\nwith a newline', 'ünïcödé ✓', ''])
      ok(end > first && first > 0, 'cursors grow')
      equal(await s.logEnd('marbles/run-1'), end, 'logEnd is the last cursor')
      const all = await s.readLog('marbles/run-1', 0)
      equal(
        all.entries,
        ['one', '{"json":true}', 'three\nwith a newline', 'ünïcödé ✓', ''],
        'every entry intact, in order',
      )
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
    "concurrent log appends are all kept, each call's entries together",
    async (s) => {
      await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          s.appendLog('journal', [`a${i}`, `b${i}`], { durability: i % 2 ? 'relaxed' : 'durable' }),
        ),
      )
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
]
