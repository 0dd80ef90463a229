import { createKernel } from '../../kernel.js'
import { factId, factNumber } from '../../memory/facts.js'
import { equal, ok } from '../expect.js'
import { catalogContent } from './catalog-content.js'
import { appendEntries, SHARED_LOG, statementTitle, type StatementWrite } from './child.js'
import type { Place, StorageCase } from './group.js'

/**
 * Start one child per argument list, wait until each has opened its store (`ready`), start them all
 * at once, and resolve with each one's last stdout line parsed; rejects naming a child that failed.
 */
async function runChildren<T>(place: Place, argLists: string[][]): Promise<T[]> {
  const spawn = place.options.spawn!
  const children = argLists.map((args) => ({ args, child: spawn(args), out: '', err: '' }))
  const ready = children.map(
    (c) =>
      new Promise<void>((resolve, reject) => {
        c.child.stdout?.on('data', (chunk) => {
          c.out += chunk.toString()
          if (c.out.split('\n').includes('ready')) resolve()
        })
        c.child.stderr?.on('data', (chunk) => (c.err += chunk.toString()))
        c.child.on('close', (code) =>
          reject(new Error(`child ${c.args.join(' ')} exited with ${code} before it was ready: ${c.err.trim()}`)),
        )
      }),
  )
  const done = children.map(
    (c) =>
      new Promise<T>((resolve, reject) =>
        c.child.on('close', (code) =>
          code === 0
            ? resolve(JSON.parse(c.out.trim().split('\n').pop()!) as T)
            : reject(new Error(`child ${c.args.join(' ')} exited with ${code}: ${c.err.trim()}`)),
        ),
      ),
  )
  done.forEach((d) => d.catch(() => undefined)) // reported below, once every child is ready or gone
  try {
    await Promise.all(ready)
  } finally {
    for (const c of children) c.child.stdin?.end('go\n') // even after a failure, so no child waits forever
  }
  return Promise.all(done)
}

const sizes = (place: Place) => ({ writers: 4, writes: 30, appenders: 4, calls: 30, ...place.options.processes })

/** With `spawn`, `fresh`, `open` and `flags.multiProcess`: several processes on one store lose nothing. */
export const MULTI_PROCESS_CASES: StorageCase[] = [
  [
    'processes writing through their own kernels at once: every write kept, fact ids gapless, one event each',
    async (s, place) => {
      const { writers, writes } = sizes(place)
      const given = (
        await runChildren<string[]>(
          place,
          Array.from({ length: writers }, (_, k) => ['writer', place.target, String(k), String(writes)]),
        )
      ).flat()
      const total = writers * writes
      const expected = Array.from({ length: total }, (_, i) => factId(i + 1))
      equal([...given].sort(), [...expected].sort(), 'each id handed out exactly once, none skipped')
      const facts = await s.list('facts')
      equal(facts.map((f) => f.id).sort(), [...expected].sort(), `fact-0001 … ${factId(total)} stored`)
      ok(
        facts.every((f) => f.status === 'active'),
        'no write superseded another',
      )
      for (let k = 0; k < writers; k++)
        equal(facts.filter((f) => f.scope === `module:w${k}`).length, writes, `worker ${k}'s facts`)
      equal(
        (await s.readEvents()).filter((e) => e.kind === 'memory_write').length,
        total,
        'one memory_write event a write',
      )
    },
  ],
  [
    "processes writing the same statements at once: dedupe and supersede across processes, ids gapless, and the write catalog each one caught up from the others' writes says what a rebuild says",
    async (s, place) => {
      const { writers, writes } = sizes(place)
      const done = (
        await runChildren<StatementWrite[]>(
          place,
          Array.from({ length: writers }, (_, k) => ['statements', place.target, String(k), String(writes)]),
        )
      ).flat()
      const created = done.filter((w) => w.action === 'created')
      equal(
        created.map((w) => factNumber(w.id)).sort((a, b) => a - b),
        Array.from({ length: created.length }, (_, i) => i + 1),
        'each created id handed out once, none skipped',
      )
      const facts = await s.list('facts')
      equal(facts.length, created.length, 'every created fact stored')
      const byId = new Map(facts.map((f) => [f.id, f]))
      for (const w of done.filter((w) => w.action === 'duplicate'))
        ok(byId.has(w.id), `a duplicate names a stored fact (${w.id})`)
      for (let i = 0; i < writes; i++) {
        const titled = facts.filter((f) => f.title === statementTitle(i, 0) || f.title === statementTitle(i, 1))
        equal(titled.filter((f) => f.status === 'active').length, 1, `one active fact states queue ${i}'s limit`)
      }
      for (const f of facts.filter((f) => f.status === 'superseded'))
        equal(byId.get(f.supersededBy!)?.supersedes, f.id, `${f.id} is superseded by the fact that names it`)
      // The catalog as the writers left it, against one rebuilt from every fact.
      const kernel = createKernel({ storage: s })
      const kept = { content: await catalogContent(s), index: await kernel.memory.readIndex() }
      equal(kept.content.members.length, writes, 'the catalog lists one active fact a statement')
      const rebuilt = await kernel.memory.index()
      equal(rebuilt.index.text, kept.index, 'INDEX.md as a rebuild renders it')
      equal(await catalogContent(s), kept.content, 'the catalog records as a rebuild writes them')
    },
  ],
  [
    "processes appending to one log at once: every entry kept, each call's entries together at the cursor it was given, while a reader follows",
    async (s, place) => {
      const { appenders, calls } = sizes(place)
      let finished = false
      const run = runChildren<number[]>(
        place,
        Array.from({ length: appenders }, (_, k) => ['appender', place.target, `w${k}`, String(calls)]),
      )
      void run.then(
        () => (finished = true),
        () => (finished = true),
      )
      // A reader tailing the log by cursor while the appenders run.
      const followed: string[] = []
      for (let cursor = 0, last = false; !last; ) {
        last = finished
        const page = await s.readLog(SHARED_LOG, cursor, { limit: 50 })
        followed.push(...page.entries)
        cursor = page.cursor
        if (page.entries.length) last = false
        else if (!last) await new Promise((resolve) => setTimeout(resolve, 5))
      }
      const cursors = await run
      const { entries, cursor: end } = await s.readLog(SHARED_LOG, 0)
      equal(entries.length, appenders * calls * 3, 'every entry')
      equal(end, await s.logEnd(SHARED_LOG), 'read to the end')
      equal(followed, entries, 'the follower read the same entries in the same order')
      // The cursor after each entry, read one at a time: each call's cursor must follow its own three entries.
      const after = new Map<number, number>()
      for (let at = 0, i = 0; i < entries.length; i++)
        after.set((at = (await s.readLog(SHARED_LOG, at, { limit: 1 })).cursor), i)
      for (const [k, returned] of cursors.entries()) {
        equal(returned.length, calls, `appender ${k} made every call`)
        ok(
          returned.every((c, i) => i === 0 || c > returned[i - 1]!),
          `appender ${k}'s cursors grow`,
        )
        for (const [call, cursor] of returned.entries()) {
          const last = after.get(cursor)
          ok(last !== undefined, `appender ${k} call ${call}: its cursor ${cursor} ends an entry`)
          equal(
            entries.slice(last - 2, last + 1),
            appendEntries(`w${k}`, call),
            `appender ${k} call ${call}: its entries together, ending at its cursor`,
          )
        }
      }
    },
  ],
]
