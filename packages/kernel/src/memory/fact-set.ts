import type { Fact, FactType } from '../schema/fact.js'
import { compareForIndex, factNumber, isActive, normalizeText, subjectWords } from './facts.js'

/**
 * Every stored fact plus the structures a write needs, kept up to date change by change so a write
 * costs the same at 100 facts and at 100 000: duplicates by key, same-subject candidates by word,
 * the index order, the highest id.
 */
export interface FactSet {
  readonly size: number
  readonly maxNumber: number
  get(id: string): Fact | undefined
  values(): IterableIterator<Fact>
  /** Add or replace a fact. */
  set(fact: Fact): void
  delete(id: string): void
  /** An active fact identical to this one (see `isSameFact`), if any. */
  findDuplicate(fact: Pick<Fact, 'type' | 'scope' | 'title' | 'body'>, today: string): Fact | undefined
  /** Active facts of this type and scope whose title shares at least one subject word. */
  subjectCandidates(type: FactType, scope: string, words: Set<string>, today: string): Fact[]
  /** Facts with status `active` (expired ones included: callers check the date) in index order. */
  ordered(): readonly Fact[]
  /** Active facts on `today`. */
  activeCount(today: string): number
}

export function createFactSet(initial: Iterable<Fact> = []): FactSet {
  const facts = new Map<string, Fact>()
  const byKey = new Map<string, Set<string>>()
  const byWord = new Map<string, Set<string>>()
  const order: Fact[] = []
  const expiring = new Set<string>()
  let maxNumber = 0

  const keyOf = (f: Pick<Fact, 'type' | 'scope' | 'title' | 'body'>) => `${f.type}\u0000${f.scope}\u0000${normalizeText(f.title)}\u0000${normalizeText(f.body)}`
  const wordKey = (type: string, scope: string, word: string) => `${type}\u0000${scope}\u0000${word}`
  const addTo = (map: Map<string, Set<string>>, key: string, id: string) => {
    let set = map.get(key)
    if (!set) map.set(key, (set = new Set()))
    set.add(id)
  }
  const removeFrom = (map: Map<string, Set<string>>, key: string, id: string) => {
    const set = map.get(key)
    if (set?.delete(id) && set.size === 0) map.delete(key)
  }
  /** Position of `fact` in `order` (or where it would go): binary search on the index order. */
  const position = (fact: Fact) => {
    let lo = 0
    let hi = order.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (compareForIndex(order[mid]!, fact) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  function unlink(fact: Fact) {
    removeFrom(byKey, keyOf(fact), fact.id)
    for (const w of subjectWords(fact.title)) removeFrom(byWord, wordKey(fact.type, fact.scope, w), fact.id)
    expiring.delete(fact.id)
    if (fact.status === 'active') {
      const at = position(fact)
      if (order[at]?.id === fact.id) order.splice(at, 1)
    }
  }

  function link(fact: Fact, ordered = true) {
    if (fact.status !== 'active') return
    addTo(byKey, keyOf(fact), fact.id)
    for (const w of subjectWords(fact.title)) addTo(byWord, wordKey(fact.type, fact.scope, w), fact.id)
    if (fact.expires !== undefined) expiring.add(fact.id)
    if (ordered) order.splice(position(fact), 0, fact)
    else order.push(fact)
  }

  const set: FactSet = {
    get size() {
      return facts.size
    },
    get maxNumber() {
      return maxNumber
    },
    get: (id) => facts.get(id),
    values: () => facts.values(),
    set(fact) {
      const old = facts.get(fact.id)
      if (old) unlink(old)
      facts.set(fact.id, fact)
      link(fact)
      maxNumber = Math.max(maxNumber, factNumber(fact.id))
    },
    delete(id) {
      const old = facts.get(id)
      if (!old) return
      unlink(old)
      facts.delete(id)
      if (factNumber(id) === maxNumber) maxNumber = Math.max(0, ...[...facts.keys()].map(factNumber))
    },
    findDuplicate(fact, today) {
      for (const id of byKey.get(keyOf(fact)) ?? []) {
        const found = facts.get(id)
        if (found && isActive(found, today)) return found
      }
      return undefined
    },
    subjectCandidates(type, scope, words, today) {
      const ids = new Set<string>()
      for (const w of words) for (const id of byWord.get(wordKey(type, scope, w)) ?? []) ids.add(id)
      return [...ids].map((id) => facts.get(id)!).filter((f) => isActive(f, today))
    },
    ordered: () => order,
    activeCount(today) {
      let expired = 0
      for (const id of expiring) if (!isActive(facts.get(id)!, today)) expired++
      return order.length - expired
    },
  }
  // Bulk load: index everything, then sort once (inserting one by one would be quadratic).
  for (const fact of initial) {
    const old = facts.get(fact.id)
    if (old) unlink(old)
    facts.set(fact.id, fact)
    link(fact, false)
    maxNumber = Math.max(maxNumber, factNumber(fact.id))
  }
  order.sort(compareForIndex)
  return set
}
