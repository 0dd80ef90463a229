import { COLLECTIONS } from './keys.js'
import {
  newEvents,
  planLog,
  planMerge,
  type KeyedRecord,
  type MergeConflict,
  type MergePlanOptions,
  type UnresolvedReference,
} from './merge-plan.js'
import { ARTIFACT_MAX_BYTES, formatBytes, JSON_MAX_DEPTH, measureJson } from './limits.js'
import type { FoundryEvent } from './schema/event.js'
import type { Artifact } from './schema/records.js'
import type { CollectionName, Collections, KernelCollection, RecordOf, Storage, StorageProblem } from './storage.js'

/** How far a copy or a merge is: called after each record, event or log written. */
export interface TransferProgress {
  /** What is being written: a collection, `events` or `logs`. */
  stage: string
  /** Items written so far, every stage together. */
  done: number
  /** Items there are to write: known before the first one is written. */
  total: number
}

export interface CopyOptions {
  /** Append the source's events to the target's log. Default true; repeat imports then repeat events. */
  events?: boolean
  /** Records the source cannot read; they are left out of the copy. */
  onProblem?: (problem: StorageProblem) => void
  /** Called after each item written (a terminal's progress line). */
  onProgress?: (progress: TransferProgress) => void
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
const RECORD_COLLECTIONS = Object.keys(KEY_OF) as RecordCollection[]
/** Derived text worth carrying over; retriever snapshots are not (they describe the source's revisions). */
const META_KEYS = ['index']
/** Records a `putMany` of a transfer stores at once: durability is paid once for each such run. */
const PUT_BATCH = 500

/** Everything a storage holds that a copy or a merge carries, read once. */
interface Snapshot {
  records: KeyedRecord[]
  events: FoundryEvent[]
  logs: Array<{ name: string; entries: string[] }>
}

/**
 * Copy every record, log and event from one storage into another, losslessly: the CLI's `export`
 * (and `import --replace`). Records with the same key in the target are replaced; logs are appended to.
 */
export async function copyStorage(from: Storage, to: Storage, options: CopyOptions = {}): Promise<CopyReport> {
  const report: CopyReport = {
    facts: 0,
    runbooks: 0,
    contracts: 0,
    artifacts: 0,
    meta: 0,
    events: 0,
    open: {},
    logEntries: 0,
  }
  const source = await read(from, options.onProblem)
  const meta: KeyedRecord[] = []
  for (const key of META_KEYS) {
    const text = await from.get('meta', key)
    if (text !== undefined) meta.push({ collection: 'meta', key, value: text })
  }
  const events = (options.events ?? true) ? source.events : []
  const progress = tracker(source.records.length + meta.length + events.length + source.logs.length, options.onProgress)
  await to.exclusive(async () => {
    await putAll(to, [...source.records, ...meta], progress, (r) => {
      if (isKernel(r.collection)) report[r.collection]++
      else report.open[r.collection] = (report.open[r.collection] ?? 0) + 1
    })
    for (const log of source.logs) {
      await to.appendLog(log.name, log.entries)
      report.logEntries += log.entries.length
      progress('logs')
    }
    // Inside the section too: on SQLite the whole import is then one transaction.
    for (const event of events) await to.appendEvent(event), report.events++, progress('events')
  })
  return report
}

export interface MergeOptions extends MergePlanOptions {
  /** Records the source cannot read (left out), and project records that cannot be read (never written over). */
  onProblem?: (problem: StorageProblem) => void
  /** Called after each item written (a terminal's progress line). */
  onProgress?: (progress: TransferProgress) => void
}

export interface MergeReport {
  /** Records stored that the project did not have, by collection (`facts`, `runbooks`, …, open ones). */
  added: Record<string, number>
  /** Project records replaced by a different imported one (only with `replace`), by collection. */
  replaced: Record<string, number>
  /** Imported records identical to the project's, not stored again, by collection (facts: deduplicated). */
  unchanged: Record<string, number>
  /** Imported fact id → its id in the project, for every fact whose id changed (renumbered, or a duplicate of another id). */
  ids: Record<string, string>
  /** Imported facts identical to a project fact (listed in `ids` when its id differs), not stored again. */
  duplicates: string[]
  /** Project facts an imported fact superseded: now marked superseded by it. */
  superseded: string[]
  /** `supersedes`/`supersededBy` references to facts the import does not hold: dropped. */
  unresolved: UnresolvedReference[]
  /** Records (and logs, collection `logs`) held in another version by the project: left as they are. */
  conflicts: MergeConflict[]
  /** Events appended (those the project did not hold yet). */
  events: number
  /** Log entries appended, all logs together. */
  logEntries: number
}

/**
 * Merge one storage into another without losing anything either holds: the CLI's `import`. Facts
 * are deduplicated and renumbered, other records added, skipped when identical or reported as
 * conflicts (see merge-plan.ts; `replace` overwrites instead). Events the target already holds are
 * not appended again; a log continues where the target's copy of it stops. The plan is made and
 * applied inside the target's exclusive section, so ids never collide with a concurrent writer.
 * Derived text (the memory index) is not carried over: rebuild it afterwards (`memory.index()`).
 */
export async function mergeStorage(from: Storage, to: Storage, options: MergeOptions = {}): Promise<MergeReport> {
  const source = withinToolLimits(from, await read(from, options.onProblem), options.onProblem)
  const report: MergeReport = {
    added: {},
    replaced: {},
    unchanged: {},
    ids: {},
    duplicates: [],
    superseded: [],
    unresolved: [],
    conflicts: [],
    events: 0,
    logEntries: 0,
  }
  const count = (field: 'added' | 'replaced' | 'unchanged', collection: string) =>
    (report[field][collection] = (report[field][collection] ?? 0) + 1)
  await to.exclusive(async () => {
    const project = await readProject(to, source, options.onProblem)
    const split = (side: KeyedRecord[]) => ({
      facts: side.filter((r) => r.collection === 'facts').map((r) => r.value as Collections['facts']),
      records: side.filter((r) => r.collection !== 'facts'),
    })
    const plan = planMerge(
      split(source.records),
      { ...split(project.records), unreadable: project.unreadable },
      options,
    )
    const events = newEvents(project.events, source.events)
    const logs = source.logs.map((log) => ({
      name: log.name,
      ...planLog(project.logs.get(log.name) ?? [], log.entries, options.replace),
    }))
    const appended = logs.filter((l) => l.append.length)
    const progress = tracker(
      plan.addFacts.length +
        plan.updateFacts.length +
        plan.addRecords.length +
        plan.replaceRecords.length +
        events.length +
        appended.length,
      options.onProgress,
    )

    Object.assign(report, {
      ids: plan.ids,
      duplicates: plan.duplicates.map((d) => d.id),
      unresolved: plan.unresolved,
      conflicts: [
        ...plan.conflicts,
        ...logs.filter((l) => l.conflict).map((l) => ({ collection: 'logs', key: l.name })),
      ],
    })
    if (plan.duplicates.length) report.unchanged.facts = plan.duplicates.length
    for (const r of plan.unchanged) count('unchanged', r.collection)
    // New facts first: a project fact marked superseded then never names a fact not yet stored.
    await putAll(
      to,
      plan.addFacts.map((f) => ({ collection: 'facts', key: f.id, value: f })),
      progress,
      () => count('added', 'facts'),
    )
    await putAll(
      to,
      plan.updateFacts.map((f) => ({ collection: 'facts', key: f.id, value: f })),
      progress,
      (r) => {
        if (options.replace) count('replaced', 'facts')
        else report.superseded.push(r.key)
      },
    )
    await putAll(to, plan.addRecords, progress, (r) => count('added', r.collection))
    await putAll(to, plan.replaceRecords, progress, (r) => count('replaced', r.collection))
    for (const log of appended) {
      await to.appendLog(log.name, log.append)
      report.logEntries += log.append.length
      progress('logs')
    }
    for (const event of events) await to.appendEvent(event), report.events++, progress('events')
  })
  return report
}

/** Every record of `from` (kernel collections but meta, then open ones), its events and its logs. */
async function read(from: Storage, onProblem: CopyOptions['onProblem']): Promise<Snapshot> {
  const listOptions = onProblem ? { onProblem } : {}
  const records: KeyedRecord[] = []
  for (const collection of RECORD_COLLECTIONS)
    for (const value of await from.list(collection, listOptions))
      records.push({ collection, key: KEY_OF[collection](value as never), value })
  for (const collection of (await from.collections()).filter((c) => !isKernel(c))) {
    for (const key of await from.keys(collection)) {
      let value
      try {
        value = await from.get(collection, key)
      } catch (error) {
        onProblem?.({ collection, key, location: from.locate(collection, key), message: (error as Error).message })
        continue
      }
      if (value !== undefined) records.push({ collection, key, value })
    }
  }
  const logs: Snapshot['logs'] = []
  for (const name of await from.logs()) logs.push({ name, entries: (await from.readLog(name, 0)).entries })
  return { records, events: await from.readEvents(), logs }
}

/**
 * An import stores only what the tools would have: an artifact over `ARTIFACT_MAX_BYTES` or nested
 * deeper than `JSON_MAX_DEPTH` (a hand-made export) is reported and left out.
 */
function withinToolLimits(from: Storage, source: Snapshot, onProblem: MergeOptions['onProblem']): Snapshot {
  const records = source.records.filter((record) => {
    if (record.collection !== 'artifacts') return true
    const { bytes, depth } = measureJson((record.value as Artifact).data, ARTIFACT_MAX_BYTES)
    if (bytes <= ARTIFACT_MAX_BYTES && depth <= JSON_MAX_DEPTH) return true
    const why =
      depth > JSON_MAX_DEPTH
        ? `nested more than ${JSON_MAX_DEPTH} levels deep`
        : `over the ${formatBytes(ARTIFACT_MAX_BYTES)} an artifact may hold`
    onProblem?.({
      collection: 'artifacts',
      key: record.key,
      location: from.locate('artifacts', record.key),
      message: `artifact ${record.key} is ${why} (blackboard_write's limit): left out of the import`,
    })
    return false
  })
  return { ...source, records }
}

/**
 * What the project holds where the import would write: its facts (every one: ids and duplicates),
 * the records under the import's keys, its events and the import's logs. A record that exists but
 * cannot be read is reported and marked unreadable, so it is never written over unasked.
 */
async function readProject(to: Storage, source: Snapshot, onProblem: MergeOptions['onProblem']) {
  const records: KeyedRecord[] = []
  const unreadable: Array<{ collection: string; key: string }> = []
  const report = (problem: StorageProblem) => (
    unreadable.push({ collection: problem.collection, key: problem.key }), onProblem?.(problem)
  )
  for (const collection of RECORD_COLLECTIONS) {
    if (collection !== 'facts' && !source.records.some((r) => r.collection === collection)) continue
    for (const value of await to.list(collection, { onProblem: report }))
      records.push({ collection, key: KEY_OF[collection](value as never), value })
  }
  for (const { collection, key } of source.records.filter((r) => !isKernel(r.collection))) {
    try {
      const value = await to.get(collection as CollectionName, key)
      if (value !== undefined) records.push({ collection, key, value })
    } catch (error) {
      report({
        collection: collection as CollectionName,
        key,
        location: to.locate(collection as CollectionName, key),
        message: (error as Error).message,
      })
    }
  }
  const logs = new Map<string, string[]>()
  for (const { name } of source.logs) logs.set(name, (await to.readLog(name, 0)).entries)
  return { records, unreadable, events: await to.readEvents(), logs }
}

/**
 * Put every record through `putMany`, a collection's consecutive records `PUT_BATCH` at a time:
 * each call is durable together (one fsync batch, one transaction), and resolves before the next.
 */
async function putAll(
  to: Storage,
  records: readonly KeyedRecord[],
  progress: (stage: string) => void,
  done: (record: KeyedRecord) => void,
): Promise<void> {
  for (let start = 0; start < records.length; ) {
    const collection = records[start]!.collection as CollectionName
    let end = start + 1
    while (end < records.length && end - start < PUT_BATCH && records[end]!.collection === collection) end++
    const chunk = records.slice(start, end)
    await to.putMany(
      collection,
      chunk.map((r) => ({ key: r.key, value: r.value as RecordOf<CollectionName> })),
    )
    for (const record of chunk) done(record), progress(record.collection)
    start = end
  }
}

/** A progress counter over `total` items: each call counts one and reports it. */
function tracker(total: number, onProgress: CopyOptions['onProgress']): (stage: string) => void {
  let done = 0
  return (stage) => onProgress?.({ stage, done: ++done, total })
}

const isKernel = (c: string): c is KernelCollection => (COLLECTIONS as string[]).includes(c)
