import { COLLECTIONS } from './keys.js'
import type { CollectionName, Collections, KernelCollection, Storage, StorageProblem } from './storage.js'

export interface CopyOptions {
  /** Append the source's events to the target's log. Default true; repeat imports then repeat events. */
  events?: boolean
  /** Records the source cannot read; they are left out of the copy. */
  onProblem?: (problem: StorageProblem) => void
}

export interface CopyReport {
  facts: number
  runbooks: number
  contracts: number
  artifacts: number
  meta: number
  events: number
  /** Records of consumers' open collections (`marbles.runs`, …), by collection. */
  open: Record<string, number>
  /** Log entries (run journals), all logs together. */
  logEntries: number
}

type RecordCollection = Exclude<KernelCollection, 'meta'>
const KEY_OF: { [C in RecordCollection]: (record: Collections[C]) => string } = {
  facts: (f) => f.id,
  runbooks: (r) => r.slug,
  contracts: (c) => c.id,
  artifacts: (a) => `${a.wave}/${a.agent}`,
}
/** Derived text worth carrying over; retriever snapshots are not (they describe the source's revisions). */
const META_KEYS = ['index']
const LOG_PAGE = 1000

/**
 * Copy every record, log and event from one storage into another, losslessly: the CLI's `export`
 * and `import`. Records with the same key in the target are replaced; logs are appended to.
 */
export async function copyStorage(from: Storage, to: Storage, options: CopyOptions = {}): Promise<CopyReport> {
  const report: CopyReport = { facts: 0, runbooks: 0, contracts: 0, artifacts: 0, meta: 0, events: 0, open: {}, logEntries: 0 }
  const listOptions = options.onProblem ? { onProblem: options.onProblem } : {}
  const isKernel = (c: CollectionName): c is KernelCollection => (COLLECTIONS as string[]).includes(c)
  await to.exclusive(async () => {
    for (const collection of Object.keys(KEY_OF) as RecordCollection[]) {
      for (const record of await from.list(collection, listOptions)) {
        await to.put(collection, KEY_OF[collection](record as never), record)
        report[collection]++
      }
    }
    for (const key of META_KEYS) {
      const text = await from.get('meta', key)
      if (text !== undefined) (await to.put('meta', key, text), report.meta++)
    }
    for (const collection of (await from.collections()).filter((c) => !isKernel(c))) {
      for (const key of await from.keys(collection)) {
        let value
        try {
          value = await from.get(collection, key)
        } catch (error) {
          options.onProblem?.({ collection, key, location: from.locate(collection, key), message: (error as Error).message })
          continue
        }
        if (value === undefined) continue
        await to.put(collection, key, value)
        report.open[collection] = (report.open[collection] ?? 0) + 1
      }
    }
    for (const log of await from.logs()) {
      for (let cursor = 0; ; ) {
        const page = await from.readLog(log, cursor, { limit: LOG_PAGE })
        if (!page.entries.length) break
        await to.appendLog(log, page.entries)
        report.logEntries += page.entries.length
        cursor = page.cursor
      }
    }
    // Inside the section too: on SQLite the whole import is then one transaction.
    if (options.events ?? true) for (const event of await from.readEvents()) (await to.appendEvent(event), report.events++)
  })
  return report
}
