import { factId, factNumber, normalizeText } from './memory/facts.js'
import type { FoundryEvent } from './schema/event.js'
import type { Fact } from './schema/fact.js'

/*
 * What an import does to a project that already holds data: a pure plan, applied by `mergeStorage`
 * (transfer.ts) inside the target's exclusive section. Nothing the project holds is lost or
 * overwritten unless `replace` asks for it:
 * - A fact identical to a project fact (same type and scope, same title and body after
 *   `normalizeText`: the duplicate rule of `memory_write`, whatever the status) is not stored
 *   again; each project fact absorbs at most one imported fact, the one with its own id first.
 * - Any other fact keeps its id when the project has no fact by that id, and otherwise gets the
 *   next free id above every id in use. `supersedes` and `supersededBy` are rewritten to the new
 *   ids; a reference to a fact the import does not hold is dropped (it would name an unrelated
 *   project fact) and reported. An imported fact that supersedes an active project fact it was
 *   deduplicated against marks that fact superseded, so the imported history holds.
 * - Other records (runbooks, contracts, artifacts, consumers' collections): absent from the
 *   project, added; identical, skipped; different under the same key, a conflict left as the
 *   project has it, or replaced with `replace`.
 * With `replace` the records are copied by key, as `copyStorage` does: facts keep their ids and
 * replace the project's fact of that id.
 */

/** One record of a collection other than facts, under its key (`runbooks`/`deploy`, `artifacts`/`audit/reviewer`). */
export interface KeyedRecord {
  collection: string
  key: string
  value: unknown
}

/** One side of a merge: every fact, and every other record. */
export interface MergeSide {
  facts: readonly Fact[]
  records: readonly KeyedRecord[]
  /** Records that exist but cannot be read (the project's): a fact id among them is taken, and a record is never written over unless `replace`. */
  unreadable?: ReadonlyArray<{ collection: string; key: string }>
}

export interface MergePlanOptions {
  /** Replace project records that differ under the same key or id (facts included) instead of keeping them. Default false. */
  replace?: boolean
}

/** A record the import holds in another version than the project: left as the project has it. */
export interface MergeConflict {
  collection: string
  key: string
}

/** A `supersedes` or `supersededBy` reference to a fact the import does not hold: dropped from the fact stored. */
export interface UnresolvedReference {
  /** The imported fact's id (before renumbering). */
  id: string
  field: 'supersedes' | 'supersededBy'
  ref: string
}

export interface MergePlan {
  /**
   * Imported fact id → its id in the project, for every fact whose id changes: renumbered because
   * the id was taken, or identical to a project fact under another id. Ids kept are not listed.
   */
  ids: Record<string, string>
  /** Imported facts to store, under their final ids, references rewritten, in id order. */
  addFacts: Fact[]
  /** Project facts to store again: marked superseded by an imported fact, or replaced by one (`replace`). */
  updateFacts: Fact[]
  /** Imported facts identical to a project fact, not stored: imported id → project id. */
  duplicates: Array<{ id: string; existing: string }>
  unresolved: UnresolvedReference[]
  /** Records absent from the project. */
  addRecords: KeyedRecord[]
  /** Records that replace a different project record of the same key (only with `replace`). */
  replaceRecords: KeyedRecord[]
  /** Records identical to the project's: nothing to do. */
  unchanged: KeyedRecord[]
  conflicts: MergeConflict[]
}

/** The import's facts and records planned against the project's: see the rules above. Pure. */
export function planMerge(incoming: MergeSide, project: MergeSide, options: MergePlanOptions = {}): MergePlan {
  const plan: MergePlan = {
    ids: {},
    addFacts: [],
    updateFacts: [],
    duplicates: [],
    unresolved: [],
    addRecords: [],
    replaceRecords: [],
    unchanged: [],
    conflicts: [],
  }
  const unreadable = project.unreadable ?? []
  const unreadableFacts = unreadable.filter((u) => u.collection === 'facts').map((u) => u.key)
  if (options.replace) replaceFacts(incoming.facts, project.facts, plan)
  else mergeFacts(incoming.facts, project.facts, unreadableFacts, plan)
  planRecords(incoming.records, project.records, unreadable, options.replace ?? false, plan)
  return plan
}

function mergeFacts(
  incoming: readonly Fact[],
  project: readonly Fact[],
  unreadable: readonly string[],
  plan: MergePlan,
) {
  const byId = new Map(project.map((f) => [f.id, f]))
  const taken = new Set([...byId.keys(), ...unreadable])
  const byContent = new Map<string, Fact[]>()
  for (const fact of [...project].sort(byNumber)) {
    const list = byContent.get(contentKey(fact))
    if (list) list.push(fact)
    else byContent.set(contentKey(fact), [fact])
  }
  const facts = [...incoming].sort(byNumber)
  const mapped = new Map<string, string>()
  const absorbed = new Set<string>()
  const absorb = (fact: Fact, into: Fact) => {
    mapped.set(fact.id, into.id)
    absorbed.add(into.id)
    plan.duplicates.push({ id: fact.id, existing: into.id })
  }

  // Duplicates: the project fact of the same id first, then one of the same status, then the oldest.
  for (const fact of facts) {
    const same = byId.get(fact.id)
    if (same && contentKey(same) === contentKey(fact)) absorb(fact, same)
  }
  for (const fact of facts) {
    if (mapped.has(fact.id)) continue
    const free = (byContent.get(contentKey(fact)) ?? []).filter((f) => !absorbed.has(f.id))
    const match = free.find((f) => f.status === fact.status) ?? free[0]
    if (match) absorb(fact, match)
  }

  // Ids: kept when free; renumbered above every id in use (the project's and the kept ones) when taken.
  const added = facts.filter((f) => !mapped.has(f.id))
  let next =
    Math.max(0, ...[...taken].map(factNumber), ...added.filter((f) => !taken.has(f.id)).map((f) => factNumber(f.id))) +
    1
  for (const fact of added) mapped.set(fact.id, taken.has(fact.id) ? factId(next++) : fact.id)

  const claims = new Map<string, Fact>()
  for (const fact of added) {
    const stored: Fact = { ...fact, id: mapped.get(fact.id)! }
    for (const field of ['supersedes', 'supersededBy'] as const) {
      const ref = fact[field]
      if (ref === undefined) continue
      const to = mapped.get(ref)
      if (to === undefined) {
        delete stored[field]
        plan.unresolved.push({ id: fact.id, field, ref })
      } else stored[field] = to
    }
    plan.addFacts.push(stored)
    // It supersedes a project fact (one an imported fact was deduplicated against): the newest claim wins.
    const target = stored.supersedes === undefined ? undefined : byId.get(stored.supersedes)
    if (target?.status === 'active' && factNumber(stored.id) > factNumber(claims.get(target.id)?.id ?? 'fact-0'))
      claims.set(target.id, stored)
  }
  plan.addFacts.sort(byNumber)
  for (const [id, by] of claims) plan.updateFacts.push({ ...byId.get(id)!, status: 'superseded', supersededBy: by.id })
  for (const [from, to] of mapped) if (from !== to) plan.ids[from] = to
}

/** `replace`: by id, as a copy does. */
function replaceFacts(incoming: readonly Fact[], project: readonly Fact[], plan: MergePlan) {
  const byId = new Map(project.map((f) => [f.id, f]))
  for (const fact of [...incoming].sort(byNumber)) {
    const same = byId.get(fact.id)
    if (!same) plan.addFacts.push(fact)
    else if (canonical(same) === canonical(fact)) plan.duplicates.push({ id: fact.id, existing: fact.id })
    else plan.updateFacts.push(fact)
  }
}

function planRecords(
  incoming: readonly KeyedRecord[],
  project: readonly KeyedRecord[],
  unreadable: ReadonlyArray<{ collection: string; key: string }>,
  replace: boolean,
  plan: MergePlan,
) {
  const held = new Map(project.map((r) => [recordKey(r), r.value]))
  const broken = new Set(unreadable.map(recordKey))
  for (const record of incoming) {
    const key = recordKey(record)
    if (!held.has(key) && !broken.has(key)) plan.addRecords.push(record)
    else if (!broken.has(key) && canonical(held.get(key)) === canonical(record.value)) plan.unchanged.push(record)
    else if (replace) plan.replaceRecords.push(record)
    else plan.conflicts.push({ collection: record.collection, key: record.key })
  }
}

/** The imported events the project does not hold yet (counted, so an event repeated in the import is kept as often as it appears there). */
export function newEvents(project: readonly FoundryEvent[], incoming: readonly FoundryEvent[]): FoundryEvent[] {
  const held = new Map<string, number>()
  for (const event of project) held.set(canonical(event), (held.get(canonical(event)) ?? 0) + 1)
  return incoming.filter((event) => {
    const key = canonical(event)
    const left = held.get(key) ?? 0
    if (left > 0) held.set(key, left - 1)
    return left === 0
  })
}

/**
 * What to append to a project log from the imported log of the same name: all of it when the
 * project has none; the rest when one of the two is the beginning of the other (an earlier import of
 * the same run); otherwise a conflict, or all of it with `replace` (logs are only ever appended to).
 */
export function planLog(
  project: readonly string[],
  incoming: readonly string[],
  replace = false,
): { append: string[]; conflict: boolean } {
  const shared = Math.min(project.length, incoming.length)
  let same = 0
  while (same < shared && project[same] === incoming[same]) same++
  if (same === shared) return { append: incoming.slice(shared), conflict: false }
  return replace ? { append: [...incoming], conflict: false } : { append: [], conflict: true }
}

/** JSON with object keys sorted: equal for records that hold the same data, whatever the key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  )
}

const byNumber = (a: Fact, b: Fact) => factNumber(a.id) - factNumber(b.id)
const contentKey = (f: Fact) => [f.type, f.scope, normalizeText(f.title), normalizeText(f.body)].join('\u0000')
const recordKey = (r: { collection: string; key: string }) => `${r.collection}\u0000${r.key}`
