import { FoundryError, isFoundryError } from '../errors.js'
import { definePlugin, type PluginHost } from '../plugin.js'
import type { RetrievalDoc } from '../retrieval.js'
import type { StorageProblem } from '../storage.js'
import type { Fact, FactInput, FactType, ForgetInput } from '../schema/fact.js'
import { FactInputSchema, ForgetInputSchema } from '../schema/fact.js'
import { SearchInputSchema, type SearchInput } from '../schema/inputs.js'
import { validator } from '../schema/validate.js'
import { dayOf, factNumber, isActive, renderFactBlock, toRetrievalDoc } from './facts.js'
import { createFactSet, type FactSet } from './fact-set.js'
import { indexOfSet, indexSummary, type MemoryIndex } from './index-file.js'
import { factIdsOf, historyLine, historyOf, statusLine, type HistoryEntry } from './lookup.js'
import { planWrite } from './plan-write.js'
import { briefLines, droppedLine, keptHits, relevanceFloor } from './relevance-floor.js'

export interface WriteResult {
  text: string
  action: 'created' | 'duplicate'
  id: string
  supersedes?: string
  index: Omit<MemoryIndex, 'text'>
  /** Close facts this write left active (not superseded), best first, at most 3; absent when none. */
  similar?: Array<{ id: string; title: string; reason: string }>
  /** Why the index could not be rewritten after the fact was stored (the fact is kept; `memory.index()` catches up); absent when it was. */
  indexStale?: string
}

export interface SearchHit {
  fact: Fact
  /** The retriever's score (BM25 for both built-ins); comparable within one retriever. 0 for a fact named by id. */
  score: number
  /**
   * The score in units of the largest IDF a word can have in this memory, ln(1 + (N − 0.5) / 1.5)
   * for N active facts, divided by the retriever's `scoreScale`: about 1 for each distinctive query
   * word the fact contains (more in its title or tags). Comparable across memories and retrievers;
   * `promptContext.minScore` is on this scale.
   */
  relevance: number
}

/** The unit of `SearchHit.relevance` for a memory of `active` facts and a retriever's `scoreScale`. */
export function relevanceUnit(active: number, scoreScale = 1): number {
  return Math.log(1 + (Math.max(1, active) - 0.5) / 1.5) * scoreScale
}

export interface SearchResult {
  text: string
  query: string
  hits: SearchHit[]
  /** Active facts in memory, reported (and counted) only when nothing matched a keyword search. */
  active?: number
  /** Hits past the first `memoryRetrieval.wholeFacts`, printed one line each (id, type, title) after the blocks; absent when none. */
  brief?: number
  /** Hits left out under the relevance floor (`memoryRetrieval.minRelevance`, `minRelevanceRatio`); absent when none. */
  dropped?: number
  /** An id lookup (a query of fact ids only): the ids named that no fact has; absent when none. */
  missing?: string[]
}

export interface HistoryResult {
  /** One line a fact, oldest first: `id · created day · state · title`. */
  text: string
  id: string
  /** The supersedes chain through `id`, oldest first, each with what it is now. */
  chain: HistoryEntry[]
}

export interface ForgetResult {
  /** `forgotten: fact-0012`, then the index line. */
  text: string
  id: string
  reason: string
  /** When, ISO 8601. */
  forgotten: string
  index: Omit<MemoryIndex, 'text'>
  /** As in `WriteResult`: why the index could not be rewritten; absent when it was. */
  indexStale?: string
}

export interface IndexResult {
  text: string
  path: string
  index: MemoryIndex
}

export interface FactListOptions {
  type?: FactType
  /** `active` (default), `superseded`, `expired`, `forgotten` or `all`. */
  status?: 'active' | 'superseded' | 'expired' | 'forgotten' | 'all'
}

export const INDEX_KEY = 'index'
/** Beside INDEX.md: the figures a short-lived process needs without reading every fact. */
export const STATS_KEY = 'memory-stats'

interface MemoryStats {
  /** The facts revision these figures describe. */
  revision: string
  active: number
  /** The earliest `expires` among active facts: the figures hold until that day has passed. */
  nextExpiry?: string
}
const factInput = validator(FactInputSchema)
const searchInput = validator(SearchInputSchema)
const forgetInput = validator(ForgetInputSchema)

/** How a fact is written besides its input: who writes it (a team server's token name), kept in the fact's `author`. */
export interface FactWriteOptions {
  author?: string
}

/** How one search departs from the configuration (for the kernel's own callers). */
export interface SearchOptions {
  /** In place of `memoryRetrieval.minRelevanceRatio`: prompt context passes 0, its `minScore` decides. */
  minRelevanceRatio?: number
}

/** The memory service: facts written, found, indexed and listed. */
export interface MemoryService {
  /** `memory_write`: validate, deduplicate, supersede, store, rebuild the index. Throws INVALID_INPUT naming the field. */
  write(input: unknown, options?: FactWriteOptions): Promise<WriteResult>
  /**
   * `memory_search`: the active facts matching the query, best first, as the seed's blocks. A query
   * of fact ids only (`fact-0012 fact-0031`) returns those facts whatever their status, each not
   * active followed by a `status:` line, and one line naming the unknown ids; type, scope and limit
   * do not apply to it.
   */
  search(input: unknown, options?: SearchOptions): Promise<SearchResult>
  /** Rebuild the index from a full read of storage (picks up facts edited by other means). */
  index(): Promise<IndexResult>
  /** The index text as stored; rebuilt first when missing or out of date. */
  readIndex(): Promise<string>
  /** Facts by status (default active) and type, in id order. */
  list(options?: FactListOptions): Promise<Fact[]>
  /** One fact by id, whatever its status. Throws NOT_FOUND. */
  get(id: string): Promise<Fact>
  /** The supersedes chain through a fact, both ways, oldest first. Throws NOT_FOUND. */
  history(id: string): Promise<HistoryResult>
  /**
   * `memory_forget`: the active fact leaves the index, the retriever and search, and stays in storage
   * with status `forgotten`, its reason and when. Throws NOT_FOUND for an unknown id, INVALID_INPUT
   * for a fact not active (superseded or already forgotten) or an empty reason.
   */
  forget(id: string, reason: string): Promise<ForgetResult>
  /** Active facts now; cheap in a short-lived process (stored figures, no full read). */
  activeCount(): Promise<number>
  /** Bring the retriever up to date and load it whole: for long-lived processes, once after start. */
  warm(): Promise<void>
}

/** Facts: write (dedup, supersede, gapless ids), the index, search, listing. */
export function createMemory(ctx: PluginHost): MemoryService {
  const { storage, retriever, config } = ctx
  let cache: { revision: string; facts: FactSet } | undefined
  /** The one refresh of `cache` in flight: concurrent callers share it instead of mutating the cache side by side. */
  let loading: Promise<FactSet> | undefined
  /** Facts fetched for search hits, while the facts revision stays the same (a server searches often, rarely loads all). */
  let fetched: { revision: string; facts: Map<string, Fact> } = { revision: '', facts: new Map() }
  /** Every fact as last read for a reader (`readFacts`) while no fact set was current. */
  let read: { revision: string; facts: Map<string, Fact> } | undefined

  /** Unreadable facts already reported, as `id message`: each is reported once, however often it is hit. */
  const reported = new Set<string>()

  /**
   * One fact from storage, or undefined. A file that cannot be read (CORRUPT) counts as missing and
   * is reported once through `onProblem`, as `list` does: one broken file never fails a search.
   * `broken` hears of it too (the fact set keeps such an id taken).
   */
  async function readFact(id: string, broken?: (id: string) => void): Promise<Fact | undefined> {
    try {
      return await storage.get('facts', id)
    } catch (error) {
      if (!isFoundryError(error) || error.code !== 'CORRUPT') throw error
      broken?.(id)
      report({ collection: 'facts', key: id, location: storage.locate('facts', id), message: error.message })
      return undefined
    }
  }

  /** Report a problem once per process, however often it is met. */
  function report(problem: StorageProblem): void {
    if (reported.has(`${problem.key} ${problem.message}`)) return
    reported.add(`${problem.key} ${problem.message}`)
    ctx.onProblem(problem)
  }

  /**
   * Every stored fact, from a cache that is checked against the storage revision on every call. One
   * refresh runs at a time (the others wait for it and check again), so interleaved writes and
   * searches in one process never apply changes to the cache side by side.
   */
  async function loadFacts(force = false): Promise<FactSet> {
    for (;;) {
      if (loading) await loading.catch(() => {})
      const revision = await storage.revision('facts')
      if (!force && cache?.revision === revision) return cache.facts
      if (loading) continue // another caller started a refresh while we asked
      const refresh = (loading = refreshFacts(revision, force))
      try {
        return await refresh
      } finally {
        if (loading === refresh) loading = undefined
      }
    }
  }

  async function refreshFacts(revision: string, force: boolean): Promise<FactSet> {
    if (!force && cache && storage.changes) {
      const keys = await storage.changes('facts', cache.revision)
      if (keys) {
        const facts = cache.facts
        for (const key of new Set(keys)) {
          let broken = false
          const fact = await readFact(key, () => (broken = true))
          if (fact) facts.set(fact)
          else facts.delete(key)
          if (broken) facts.hold(key)
        }
        cache = { revision, facts }
        return facts
      }
    }
    // A record that exists but cannot be read keeps its id: the next write must never overwrite it.
    const held: string[] = []
    const list = await storage.list('facts', { onProblem: (problem) => (held.push(problem.key), report(problem)) })
    cache = { revision, facts: createFactSet(list, held) }
    // Having read everything, leave the figures for the next short-lived process (facts imported or
    // written by other means have none yet). Only a cache: a read-only store must not fail the read.
    if (!(await currentStats())) await saveStats(cache.facts, revision).catch(() => {})
    return cache.facts
  }

  async function saveIndex(facts: FactSet, revision: string): Promise<MemoryIndex> {
    const today = dayOf(ctx.now())
    const index = indexOfSet(facts, config.indexTokenBudget, today)
    await storage.put('meta', INDEX_KEY, index.text)
    await saveStats(facts, revision)
    return index
  }

  /**
   * After a fact was stored: the index saved, or, when that fails (INDEX.md unwritable, the disk
   * full), the index as it should be and why it is stale. The fact is kept either way, so the
   * write succeeds with a warning rather than failing for data that was stored.
   */
  async function saveIndexAfterWrite(facts: FactSet, revision: string): Promise<{ index: MemoryIndex; stale?: string }> {
    try {
      return { index: await saveIndex(facts, revision) }
    } catch (error) {
      return { index: indexOfSet(facts, config.indexTokenBudget, dayOf(ctx.now())), stale: (error as Error).message }
    }
  }

  const staleLine = (why: string) => `warning: the fact is stored, but INDEX.md could not be rewritten (${why}); run foundry index once that is fixed`

  async function saveStats(facts: FactSet, revision: string): Promise<void> {
    const today = dayOf(ctx.now())
    const stats: MemoryStats = { revision, active: facts.activeCount(today) }
    const nextExpiry = facts.nextExpiry(today)
    if (nextExpiry) stats.nextExpiry = nextExpiry
    await storage.put('meta', STATS_KEY, JSON.stringify(stats), { durability: 'relaxed' })
  }

  /** Stored figures, when they still describe the facts: same revision, no expiry passed since. */
  async function currentStats(): Promise<MemoryStats | undefined> {
    try {
      const stats = JSON.parse((await storage.get('meta', STATS_KEY)) ?? 'null') as MemoryStats | null
      if (!stats || stats.revision !== (await storage.revision('facts'))) return undefined
      return stats.nextExpiry === undefined || dayOf(ctx.now()) <= stats.nextExpiry ? stats : undefined
    } catch {
      return undefined
    }
  }

  let counted: { revision: string; day: string; active: number } | undefined

  /** Active facts now: from the cache when current, else the stored figures, else a full read. */
  async function activeCount(): Promise<number> {
    const today = dayOf(ctx.now())
    const revision = await storage.revision('facts')
    if (cache && cache.revision === revision) return cache.facts.activeCount(today)
    if (counted?.revision === revision && counted.day === today) return counted.active
    const active = (await currentStats())?.active ?? (await loadFacts()).activeCount(today)
    counted = { revision, day: today, active }
    return active
  }

  /** Bring the retriever up to date and load it whole: for servers, once after start. */
  async function warm(): Promise<void> {
    await syncRetriever()
    await retriever.warm?.()
  }

  /** Bring the retriever up to the storage revision: the changed facts when the store can say which, else all. */
  async function syncRetriever(): Promise<void> {
    const revision = await storage.revision('facts')
    const have = await retriever.revision()
    if (have === revision) return
    const keys = have !== undefined && storage.changes ? await storage.changes('facts', have) : undefined
    const today = dayOf(ctx.now())
    if (keys) {
      const current: Fact[] = []
      const remove: string[] = []
      for (const key of new Set(keys)) {
        const fact = await readFact(key)
        if (fact && isActive(fact, today)) current.push(fact)
        else remove.push(key)
      }
      // A writer that died between storing a fact and marking the one it supersedes left both active
      // on disk: the newer one wins here, as it does in the fact set.
      const replaced = new Set(current.flatMap((f) => (f.supersedes ? [f.supersedes] : [])))
      const upsert: RetrievalDoc[] = current.filter((f) => !replaced.has(f.id)).map(toRetrievalDoc)
      remove.push(...replaced)
      await retriever.apply({ revision, upsert, remove })
      return
    }
    const active = [...(await loadFacts()).values()].filter((f) => isActive(f, today))
    await retriever.apply({ revision, reset: true, upsert: active.map(toRetrievalDoc), remove: [] })
  }

  async function write(raw: unknown, options?: FactWriteOptions): Promise<WriteResult> {
    const input: FactInput = factInput.parse(raw, 'memory_write input')
    const before = await retriever.revision()
    const outcome = await storage.exclusive(async () => {
      const revision = await storage.revision('facts')
      const facts = await loadFacts()
      const plan = planWrite(input, facts, ctx.now())
      if (plan.action !== 'duplicate' && options?.author) plan.fact.author = options.author
      if (plan.action === 'duplicate') return { plan, revision, after: revision, index: undefined, stale: undefined }
      // The new fact first, then the old one marked: a crash in between leaves the new fact naming
      // the old in `supersedes`, and every reader (the fact set, the retriever sync) repairs that.
      await storage.put('facts', plan.fact.id, plan.fact)
      if (plan.superseded) await storage.put('facts', plan.superseded.id, plan.superseded)
      facts.set(plan.fact)
      if (plan.superseded) facts.set(plan.superseded)
      for (const repaired of facts.takeRepairs()) await storage.put('facts', repaired.id, repaired)
      const after = await storage.revision('facts')
      cache = { revision: after, facts }
      const { index, stale } = await saveIndexAfterWrite(facts, after)
      return { plan, revision, after, index, stale }
    })
    const { plan } = outcome
    if (plan.action === 'duplicate') {
      const index = indexOfSet(await loadFacts(), config.indexTokenBudget, dayOf(ctx.now()))
      return result('duplicate', plan.existing.id, undefined, index, `exists: ${plan.existing.id} (identical fact, nothing written)`)
    }
    // Keep the retriever in step when it was current before the write; otherwise the next search syncs it.
    if (before === outcome.revision)
      await retriever.apply({ revision: outcome.after, upsert: [toRetrievalDoc(plan.fact)], remove: plan.superseded ? [plan.superseded.id] : [] })
    const head = `created: ${plan.fact.id}${plan.superseded ? ` (supersedes ${plan.superseded.id})` : ''}`
    const out = result('created', plan.fact.id, plan.superseded?.id, outcome.index!, head)
    if (plan.similar.length) {
      out.similar = plan.similar.map(({ fact, reason }) => ({ id: fact.id, title: fact.title, reason }))
      // After the seed's lines: the close facts left active, so the writer can still replace one.
      for (const { id, title, reason } of out.similar) out.text += `\nsimilar: ${id} "${title}" (not superseded: ${reason}; pass supersedes: "${id}" to replace it)`
    }
    if (outcome.stale) {
      out.indexStale = outcome.stale
      out.text += `\n${staleLine(outcome.stale)}`
    }
    return out
  }

  function result(action: WriteResult['action'], id: string, supersedes: string | undefined, index: MemoryIndex, head: string): WriteResult {
    const { text: _text, ...figures } = index
    const out: WriteResult = { text: `${head}\nIndex: ${indexSummary(index)} over budget.`, action, id, index: figures }
    if (supersedes) out.supersedes = supersedes
    return out
  }

  /** A query of fact ids only: those facts, whatever their status; undefined for any other query. */
  async function lookup(query: string): Promise<SearchResult | undefined> {
    const ids = factIdsOf(query)
    if (!ids) return undefined
    const today = dayOf(ctx.now())
    const revision = await storage.revision('facts')
    const current = cache?.revision === revision ? cache.facts : undefined
    const hits: SearchHit[] = []
    const missing: string[] = []
    for (const id of ids) {
      const fact = current?.get(id) ?? (await storage.get('facts', id))
      if (fact) hits.push({ fact, score: 0, relevance: 0 })
      else missing.push(id)
    }
    const blocks = hits.map(({ fact }) => [renderFactBlock(fact), statusLine(fact, today)].filter(Boolean).join('\n'))
    if (missing.length) blocks.push(`Unknown fact id${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}. ${ctx.hints.listFacts}`)
    return { text: blocks.join('\n\n'), query, hits, ...(missing.length ? { missing } : {}) }
  }

  async function search(raw: unknown, options: SearchOptions = {}): Promise<SearchResult> {
    const input: SearchInput = searchInput.parse(raw, 'memory_search input')
    const named = await lookup(input.query)
    if (named) return named
    const limit = input.limit ?? config.memoryRetrieval.maxFacts
    await syncRetriever()
    // Ask for more than `limit`: the retriever may still hold facts that expired since it was updated.
    const query = { text: input.query, limit: limit * 2 + 4, ...(input.type && { type: input.type }), ...(input.scope && { scope: input.scope }) }
    let found = await retriever.search(query)
    if (!found.length && (await retriever.revision()) === undefined) {
      // The retriever lost its state (a snapshot removed under it): index again, once.
      await syncRetriever()
      found = await retriever.search(query)
    }
    const today = dayOf(ctx.now())
    const revision = await storage.revision('facts')
    const current = cache?.revision === revision ? cache.facts : undefined
    if (fetched.revision !== revision) fetched = { revision, facts: new Map() }
    const hits: SearchHit[] = []
    for (const hit of found) {
      if (hits.length === limit) break
      let fact = current?.get(hit.id) ?? fetched.facts.get(hit.id)
      if (!fact && (fact = await readFact(hit.id))) fetched.facts.set(hit.id, fact)
      if (fact && isActive(fact, today)) hits.push({ fact, score: hit.score, relevance: 0 })
    }
    if (hits.length) {
      const unit = relevanceUnit(await activeCount(), retriever.scoreScale)
      for (const hit of hits) hit.relevance = hit.score / unit
    }
    // Every fact returned costs the agent tokens: weak hits under the floor are left out, and one
    // line after the seed's text says how many.
    const floor = relevanceFloor(hits[0]?.relevance ?? 0, { ...config.memoryRetrieval, ...options })
    const kept = keptHits(hits, input.query, floor)
    const dropped = hits.length - kept.length
    const extra = dropped ? { dropped } : {}
    if (kept.length) {
      // The best hits whole (the seed's blocks), the others one line each: their ids fetch them whole.
      const whole = kept.slice(0, config.memoryRetrieval.wholeFacts)
      const brief = kept.slice(whole.length)
      const parts = whole.map((h) => renderFactBlock(h.fact))
      if (brief.length) parts.push(briefLines(brief))
      if (dropped) parts.push(droppedLine(dropped, floor))
      return { text: parts.join('\n\n'), query: input.query, hits: kept, ...(brief.length && { brief: brief.length }), ...extra }
    }
    const active = await activeCount()
    const text = `No stored fact matches "${input.query}". Memory holds ${active} active facts.` + (dropped ? `\n${droppedLine(dropped, floor)}` : '')
    return { text, query: input.query, hits: kept, active, ...extra }
  }

  /** Rebuild INDEX.md from a full read of storage (picks up facts edited by other means). */
  async function index(): Promise<IndexResult> {
    const facts = await loadFacts(true)
    const built = await saveIndex(facts, cache!.revision)
    await syncRetriever()
    const path = storage.locate('meta', INDEX_KEY)
    return { text: `Rebuilt ${path}\n${indexSummary(built)}.`, path, index: built }
  }

  /** INDEX.md as stored; rebuilt first when missing, when facts changed by other means, or when a listed fact has expired. */
  async function readIndex(): Promise<string> {
    const stored = await storage.get('meta', INDEX_KEY)
    if (stored !== undefined && (await currentStats())) return stored
    const facts = await loadFacts()
    return (await saveIndex(facts, cache!.revision)).text
  }

  /**
   * Every stored fact as a reader sees it, for list, get and history: the fact set when it is
   * current, else one read of storage with the fact set's repair applied (an active fact a newer one
   * names in `supersedes` reads as superseded by it), without building the structures only a write
   * needs (`foundry list` and `show` at 1k facts spent a third of their time on them).
   */
  async function readFacts(): Promise<{ get(id: string): Fact | undefined; values(): Iterable<Fact> }> {
    const revision = await storage.revision('facts')
    if (cache?.revision === revision) return cache.facts
    if (read?.revision === revision) return read.facts
    const stored = await storage.list('facts', { onProblem: ctx.onProblem })
    const claims = new Map<string, string>()
    for (const fact of stored) if (fact.supersedes !== undefined && factNumber(fact.supersedes) < factNumber(fact.id)) claims.set(fact.supersedes, fact.id)
    const facts = new Map<string, Fact>()
    for (const fact of stored) {
      const claimant = fact.status === 'active' ? claims.get(fact.id) : undefined
      facts.set(fact.id, claimant === undefined ? fact : { ...fact, status: 'superseded', supersededBy: claimant })
    }
    read = { revision, facts }
    return facts
  }

  async function list(options: FactListOptions = {}): Promise<Fact[]> {
    const status = options.status ?? 'active'
    const today = dayOf(ctx.now())
    const expired = (f: Fact) => f.status === 'active' && !isActive(f, today)
    return [...(await readFacts()).values()]
      .filter((f) => !options.type || f.type === options.type)
      .filter((f) => status === 'all' || (status === 'expired' ? expired(f) : status === 'active' ? isActive(f, today) : f.status === status))
      .sort((a, b) => factNumber(a.id) - factNumber(b.id))
  }

  async function get(id: string): Promise<Fact> {
    const fact = (await readFacts()).get(id)
    if (!fact) throw new FoundryError('NOT_FOUND', `No fact ${id}. ${ctx.hints.listFacts}`)
    return fact
  }

  async function history(id: string): Promise<HistoryResult> {
    const facts = await readFacts()
    const fact = facts.get(id)
    if (!fact) throw new FoundryError('NOT_FOUND', `No fact ${id}. ${ctx.hints.listFacts}`)
    const chain = historyOf(fact, (other) => facts.get(other), dayOf(ctx.now()))
    return { text: chain.map(historyLine).join('\n'), id, chain }
  }

  async function forget(id: string, reason: string): Promise<ForgetResult> {
    const input: ForgetInput = forgetInput.parse({ id, reason }, 'memory_forget input')
    const why = input.reason.trim().replace(/\s+/g, ' ')
    if (!why) throw new FoundryError('INVALID_INPUT', 'reason must not be empty: say why the fact is wrong or no longer holds')
    const before = await retriever.revision()
    const outcome = await storage.exclusive(async () => {
      const revision = await storage.revision('facts')
      const facts = await loadFacts()
      const fact = facts.get(input.id)
      if (!fact) throw new FoundryError('NOT_FOUND', `No fact ${input.id}. ${ctx.hints.listFacts}`)
      if (fact.status === 'superseded')
        throw new FoundryError('INVALID_INPUT', `${fact.id} is superseded${fact.supersededBy ? ` by ${fact.supersededBy}` : ''} and already out of the index and search; forget the active fact of its history instead`)
      if (fact.status === 'forgotten') throw new FoundryError('INVALID_INPUT', `${fact.id} is already forgotten${fact.forgottenReason ? ` (${fact.forgottenReason})` : ''}; nothing to do`)
      const forgotten: Fact = { ...fact, status: 'forgotten', forgotten: ctx.now().toISOString(), forgottenReason: why }
      await storage.put('facts', forgotten.id, forgotten)
      facts.set(forgotten)
      for (const repaired of facts.takeRepairs()) await storage.put('facts', repaired.id, repaired)
      const after = await storage.revision('facts')
      cache = { revision: after, facts }
      const { index, stale } = await saveIndexAfterWrite(facts, after)
      return { fact: forgotten, revision, after, index, stale }
    })
    // Keep the retriever in step when it was current before; otherwise the next search syncs it.
    if (before === outcome.revision) await retriever.apply({ revision: outcome.after, upsert: [], remove: [outcome.fact.id] })
    const { text: _text, ...figures } = outcome.index
    const { fact } = outcome
    let text = `forgotten: ${fact.id}\nIndex: ${indexSummary(outcome.index)} over budget.`
    // Forgetting does not bring back what the fact replaced: say so, and how to restore it.
    if (fact.supersedes) text += `\n${fact.supersedes}, which it superseded, stays superseded; write its statement again to restore it.`
    if (outcome.stale) text += `\n${staleLine(outcome.stale)}`
    return { text, id: fact.id, reason: why, forgotten: fact.forgotten!, index: figures, ...(outcome.stale && { indexStale: outcome.stale }) }
  }

  return { write, search, index, readIndex, list, get, history, forget, activeCount, warm }
}

/** The memory service as a kernel plugin: every operation records its duration and outcome. */
export const memoryPlugin = definePlugin({
  name: 'memory',
  setup: createMemory,
  trace: {
    write: { kind: 'memory_write', data: (r) => ({ action: r.action, id: r.id, ...(r.supersedes && { supersedes: r.supersedes }) }) },
    search: { kind: 'memory_search', data: (r) => ({ hits: r.hits.length, ...(r.dropped && { dropped: r.dropped }) }) },
    index: { kind: 'memory_index', data: (r) => ({ listed: r.index.listed, total: r.index.total }) },
    readIndex: 'memory_read_index',
    list: { kind: 'memory_list', data: (r) => ({ facts: r.length }) },
    get: 'memory_get',
    history: { kind: 'memory_history', data: (r) => ({ id: r.id, facts: r.chain.length }) },
    forget: { kind: 'memory_forget', data: (r) => ({ id: r.id }) },
  },
})
