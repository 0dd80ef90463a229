import { CONFIDENCES, FACT_ID_PATTERN, FACT_TYPES, type Fact, type FactType } from '../schema/fact.js'
import {
  claimOf,
  factNumber,
  isActive,
  normalizeText,
  probeCount,
  statementKeys,
  subjectTokens,
  titleTokens,
} from './facts.js'

/**
 * Every stored fact plus the structures a write needs, kept up to date change by change so a write
 * costs about the same at 100 facts and at 100 000: duplicates by title, same-statement candidates
 * by statement key, similar ones by title token (each built for one type and scope on the first
 * write of them: a write's candidates share its type and scope), the index order, the highest id.
 */
export interface FactSet {
  readonly size: number
  /** The highest id number taken: by a fact, or by a record that exists but cannot be read (`hold`). */
  readonly maxNumber: number
  get(id: string): Fact | undefined
  values(): IterableIterator<Fact>
  /** Add or replace a fact (an id held for an unreadable record is released: it reads again). */
  set(fact: Fact): void
  /** Forget the fact or held id: its record is gone. */
  delete(id: string): void
  /**
   * Keep `id` taken although its record cannot be read (a broken file): no write is ever given it,
   * so what stands there is never overwritten. Ids not shaped like a fact's are ignored.
   */
  hold(id: string): void
  /** An active fact identical to this one, if any: same type and scope, same title and body after `normalizeText`. */
  findDuplicate(fact: Pick<Fact, 'type' | 'scope' | 'title' | 'body'>, today: string): Fact | undefined
  /** Active facts of this type and scope indexed under one of these `statementKeys`: every fact the same-statement rule could supersede. */
  statementCandidates(type: FactType, scope: string, keys: string[], today: string): Fact[]
  /**
   * Active facts of this type and scope whose title holds one of `tokens` (a title's `subjectTokens`),
   * probing the `probeCount` rarest, rarest first, and stopping before a token that would bring
   * more than `limit` facts. Empty when none does.
   */
  subjectCandidates(type: FactType, scope: string, tokens: Set<string>, today: string, limit?: number): Fact[]
  /** Facts with status `active` (expired ones included: callers check the date) in index order: type, confidence, newest first. */
  ordered(): Iterable<Fact>
  /** Active facts on `today`. */
  activeCount(today: string): number
  /**
   * Facts this set holds as superseded although storage still has them active: a writer died
   * between storing a fact and marking the one it supersedes (the newer fact's `supersedes` wins).
   * Returns them once, so the next write stores the repair.
   */
  takeRepairs(): Fact[]
}

const FACT_ID = new RegExp(FACT_ID_PATTERN)

/**
 * The ids `subjectCandidates` returns, given the postings of a title's subject tokens in the title's
 * order: the `probeCount` rarest postings, rarest first (equal sizes keep the title's order),
 * stopping before one that would bring the total over `limit`.
 */
export function probeSubjects(postings: readonly (readonly string[])[], limit: number): Set<string> {
  const probed = postings
    .map((ids, i) => ({ ids, i }))
    .sort((x, y) => x.ids.length - y.ids.length || x.i - y.i)
    .slice(0, probeCount(postings.length))
  const ids = new Set<string>()
  for (const { ids: posting } of probed) {
    if (ids.size + posting.length > limit) break
    for (const id of posting) ids.add(id)
  }
  return ids
}

/** Oldest first within a (type, confidence) bucket; the index reads each bucket backwards. */
const olderFirst = (a: Fact, b: Fact) =>
  a.created < b.created ? -1 : a.created > b.created ? 1 : factNumber(a.id) - factNumber(b.id)

/** The structures of one (type, scope): every candidate a write looks at shares the new fact's type and scope. */
interface Partition {
  /** Its active facts (expired ones included), in the order they were linked. */
  members: Set<string>
  /** Built on the first write of this type and scope: a bulk load indexes nothing it does not need. */
  indexed?: {
    byTitle: Map<string, Set<string>>
    byToken: Map<string, Set<string>>
    byKey: Map<string, Set<string>>
  }
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
export function createFactSet(initial: Iterable<Fact> = [], held: Iterable<string> = []): FactSet {
  const facts = new Map<string, Fact>()
  /** Ids whose records exist but cannot be read. */
  const holds = new Set<string>()
  const partitions = new Map<string, Partition>()
  // One bucket per (type, confidence), in index order: appending the newest fact is O(1).
  const buckets = new Map<string, Fact[]>()
  for (const type of FACT_TYPES) for (const confidence of CONFIDENCES) buckets.set(`${type}/${confidence}`, [])
  const expiring = new Set<string>()
  /** Superseded id → the id of the fact that names it in `supersedes`. */
  const claims = new Map<string, string>()
  const repairs = new Map<string, Fact>()
  let activeTotal = 0
  let maxNumber = 0

  const partitionOf = (type: string, scope: string) => {
    const key = `${type}\u0000${scope}`
    let partition = partitions.get(key)
    if (!partition) partitions.set(key, (partition = { members: new Set() }))
    return partition
  }
  const bucketOf = (f: Fact) => buckets.get(`${f.type}/${f.confidence}`)!
  const addTo = (map: Map<string, Set<string>>, key: string, id: string) => {
    let set = map.get(key)
    if (!set) map.set(key, (set = new Set()))
    set.add(id)
  }
  const removeFrom = (map: Map<string, Set<string>>, key: string, id: string) => {
    const set = map.get(key)
    if (set?.delete(id) && set.size === 0) map.delete(key)
  }
  const position = (bucket: Fact[], fact: Fact) => {
    let lo = 0
    let hi = bucket.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (olderFirst(bucket[mid]!, fact) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Add a fact to (or, with `add` false, take it out of) its partition's title, token and statement-key maps. */
  function index(partition: Partition, fact: Fact, add: boolean) {
    const { byTitle, byToken, byKey } = partition.indexed!
    const change = add ? addTo : removeFrom
    change(byTitle, normalizeText(fact.title), fact.id)
    const tokens = titleTokens(fact.title)
    for (const t of subjectTokens(tokens)) change(byToken, t, fact.id)
    for (const k of statementKeys(tokens)) change(byKey, k, fact.id)
  }

  /** The partition of `type` and `scope` with its maps, built now if no write of them came before. */
  function indexed(type: string, scope: string): NonNullable<Partition['indexed']> {
    const partition = partitionOf(type, scope)
    if (!partition.indexed) {
      partition.indexed = { byTitle: new Map(), byToken: new Map(), byKey: new Map() }
      for (const id of partition.members) index(partition, facts.get(id)!, true)
    }
    return partition.indexed
  }

  function unlink(fact: Fact) {
    if (fact.status !== 'active') return
    const partition = partitionOf(fact.type, fact.scope)
    partition.members.delete(fact.id)
    if (partition.indexed) index(partition, fact, false)
    expiring.delete(fact.id)
    const bucket = bucketOf(fact)
    // Binary search in a sorted bucket; a linear one while a bulk load has not sorted it yet.
    const found = position(bucket, fact)
    const at = bucket[found]?.id === fact.id ? found : bucket.findIndex((f) => f.id === fact.id)
    if (at >= 0) bucket.splice(at, 1)
    activeTotal--
  }

  function link(fact: Fact, sorted = true) {
    if (fact.status !== 'active') return
    const partition = partitionOf(fact.type, fact.scope)
    partition.members.add(fact.id)
    if (partition.indexed) index(partition, fact, true)
    if (fact.expires !== undefined) expiring.add(fact.id)
    const bucket = bucketOf(fact)
    if (!sorted) bucket.push(fact)
    else {
      const last = bucket[bucket.length - 1]
      if (!last || olderFirst(last, fact) < 0) bucket.push(fact)
      else bucket.splice(position(bucket, fact), 0, fact)
    }
    activeTotal++
  }

  function put(stored: Fact, sorted: boolean) {
    let fact = stored
    const claimant = claims.get(fact.id)
    if (fact.status === 'active' && claimant !== undefined) {
      fact = { ...fact, status: 'superseded', supersededBy: claimant }
      repairs.set(fact.id, fact)
    } else repairs.delete(fact.id)
    const claimed = claimOf(fact)
    if (claimed !== undefined) {
      claims.set(claimed, fact.id)
      const replaced = facts.get(claimed)
      if (replaced?.status === 'active') put(replaced, sorted)
    }
    const old = facts.get(fact.id)
    if (old) unlink(old)
    facts.set(fact.id, fact)
    holds.delete(fact.id)
    link(fact, sorted)
    maxNumber = Math.max(maxNumber, factNumber(fact.id))
  }

  const highest = () => Math.max(0, ...[...facts.keys(), ...holds].map(factNumber))

  const set: FactSet = {
    get size() {
      return facts.size
    },
    get maxNumber() {
      return maxNumber
    },
    get: (id) => facts.get(id),
    values: () => facts.values(),
    set: (fact) => put(fact, true),
    delete(id) {
      const old = facts.get(id)
      if (old) unlink(old)
      if (!facts.delete(id) && !holds.delete(id)) return
      if (factNumber(id) === maxNumber) maxNumber = highest()
    },
    hold(id) {
      if (!FACT_ID.test(id) || facts.has(id)) return
      holds.add(id)
      maxNumber = Math.max(maxNumber, factNumber(id))
    },
    findDuplicate(fact, today) {
      const body = normalizeText(fact.body)
      for (const id of indexed(fact.type, fact.scope).byTitle.get(normalizeText(fact.title)) ?? []) {
        const found = facts.get(id)!
        if (isActive(found, today) && normalizeText(found.body) === body) return found
      }
      return undefined
    },
    statementCandidates(type, scope, keys, today) {
      const ids = new Set<string>()
      const { byKey } = indexed(type, scope)
      for (const k of keys) for (const id of byKey.get(k) ?? []) ids.add(id)
      return [...ids].map((id) => facts.get(id)!).filter((f) => isActive(f, today))
    },
    subjectCandidates(type, scope, tokens, today, limit = Infinity) {
      const { byToken } = indexed(type, scope)
      const ids = probeSubjects(
        [...tokens].map((t) => [...(byToken.get(t) ?? [])]),
        limit,
      )
      return [...ids].map((id) => facts.get(id)!).filter((f) => isActive(f, today))
    },
    *ordered() {
      for (const bucket of buckets.values()) for (let i = bucket.length - 1; i >= 0; i--) yield bucket[i]!
    },
    activeCount(today) {
      let expired = 0
      for (const id of expiring) if (!isActive(facts.get(id)!, today)) expired++
      return activeTotal - expired
    },
    takeRepairs() {
      const out = [...repairs.values()]
      repairs.clear()
      return out
    },
  }
  // Bulk load: index everything, then sort each bucket once (inserting one by one would be quadratic).
  for (const fact of initial) put(fact, false)
  for (const bucket of buckets.values()) bucket.sort(olderFirst)
  for (const id of held) set.hold(id)
  return set
}
