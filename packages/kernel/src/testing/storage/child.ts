import { createKernel } from '../../kernel.js'
import type { Storage } from '../../storage.js'

/** The least of Node's `process` a child needs; passed in, so the suite imports nothing from Node. */
export interface ChildHost {
  argv: string[]
  stdout: { write(text: string): unknown }
  stdin: { once(event: 'data', listener: () => void): unknown }
}

/** The log the appenders share. */
export const SHARED_LOG = 'shared/journal'

/** A word of letters per number: the same-subject rule ignores digits, so titles must differ in words. */
const word = (n: number) => [...String(n)].map((d) => 'abcdefghij'[Number(d)]).join('') + 'x'

/** The entries of one append: three, the second 100 KB long every fifth call, so large writes race small ones. */
export function appendEntries(worker: string, call: number): string[] {
  const big = call % 5 === 0 ? `\n${'x'.repeat(100_000)}` : ''
  return [`${worker}:${call}:0 ü\nsecond line`, `${worker}:${call}:1${big}`, `${worker}:${call}:2 "quoted" \\ ✓`]
}

/**
 * The multiProcess group's child, run by an adapter's child module in one line:
 * `await storageChild((target) => myStorage(target), process)`. Its arguments (from the suite) are
 * `writer <target> <worker> <writes>`, `statements <target> <worker> <writes>` or
 * `appender <target> <worker> <calls>`. It opens the store,
 * prints `ready`, waits for a line on stdin (so every child starts at once), does its part and
 * prints what it was given as one JSON line: the fact ids, the write results, or the cursors of its appends.
 */
export async function storageChild(
  open: (target: string) => Storage | Promise<Storage>,
  host: ChildHost,
): Promise<void> {
  const [role, target, worker, count] = host.argv.slice(2) as [string, string, string, string]
  if (!(role in ROLES) || !target || !worker || !(Number(count) >= 0))
    throw new Error(
      `storageChild: expected writer|statements|appender <target> <worker> <count>, got ${host.argv.slice(2).join(' ')}`,
    )
  const storage = await open(target)
  host.stdout.write('ready\n')
  await new Promise<void>((resolve) => host.stdin.once('data', () => resolve()))
  const given = await ROLES[role as keyof typeof ROLES](storage, worker, Number(count))
  host.stdout.write(`${JSON.stringify(given)}\n`)
}

/** `count` memory writes through a kernel, each creating one fact in the worker's scope. */
async function write(storage: Storage, worker: string, count: number): Promise<string[]> {
  const kernel = createKernel({ storage })
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const result = await kernel.memory.write({
      title: `Component ${word(i)} of worker ${word(Number(worker))} handles queue ${word(i + 1000)}`,
      body: `Written by worker ${worker}, number ${i}.`,
      type: 'convention',
      scope: `module:w${worker}`,
    })
    if (result.action !== 'created' || result.supersedes) throw new Error(`unexpected write result: ${result.text}`)
    ids.push(result.id)
  }
  await kernel.close()
  return ids
}

/**
 * The same statements as the other workers, in one scope: write `i` states queue `i`'s limit, with a
 * value shared by every other worker, so writers of other processes dedupe and supersede each
 * other's facts. Returns each write's action, id and what it superseded.
 */
async function writeStatements(storage: Storage, worker: string, count: number): Promise<StatementWrite[]> {
  const kernel = createKernel({ storage })
  const done: StatementWrite[] = []
  for (let i = 0; i < count; i++) {
    const result = await kernel.memory.write({
      title: statementTitle(i, Number(worker) % 2),
      body: `The limit of queue ${word(i)}.`,
      type: 'convention',
    })
    done.push({ action: result.action, id: result.id, ...(result.supersedes && { supersedes: result.supersedes }) })
  }
  await kernel.close()
  return done
}

/** What a `statements` writer did with one write. */
export interface StatementWrite {
  action: 'created' | 'duplicate'
  id: string
  supersedes?: string
}

/** The title of a `statements` writer's write `i` with value `value`: the same statement for every value. */
export const statementTitle = (i: number, value: number) => `Queue ${word(i)} limit is ${100 + value}`

const ROLES = {
  writer: write,
  statements: writeStatements,
  appender: append,
}

/** `calls` appends to the shared log, durable and relaxed in turn, a short random pause between them as a real writer has. */
async function append(storage: Storage, worker: string, calls: number): Promise<number[]> {
  const cursors: number[] = []
  for (let call = 0; call < calls; call++) {
    cursors.push(
      await storage.appendLog(SHARED_LOG, appendEntries(worker, call), {
        durability: call % 2 ? 'relaxed' : 'durable',
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 4))
  }
  await storage.close?.()
  return cursors
}
