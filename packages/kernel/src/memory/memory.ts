import { isoTime } from '../clock.js'
import { FoundryError } from '../errors.js'
import { definePlugin, type PluginHost } from '../plugin.js'
import type { RetrievalDoc } from '../retrieval.js'
import type { Fact, FactInput, ForgetInput } from '../schema/fact.js'
import { FactInputSchema, ForgetInputSchema } from '../schema/fact.js'
import { SearchInputSchema, type SearchInput } from '../schema/inputs.js'
import { validator } from '../schema/validate.js'
import { claimOf, dayOf, factNumber, isActive, renderFactBlock, toRetrievalDoc } from './facts.js'
import type { WriteSet } from './catalog.js'
import { createFactStore } from './fact-store.js'
import { indexSummary, type MemoryIndex } from './index-file.js'
import { factIdsOf, historyLine, historyOf, statusLine } from './lookup.js'
import { batchInputs, atPosition } from './write-batch.js'
import { planWrite, type WritePlan } from './plan-write.js'
import { briefLines, droppedLine, keptHits, relevanceFloor } from './relevance-floor.js'
import {
  relevanceUnit,
  type FactListOptions,
  type FactWriteOptions,
  type ForgetResult,
  type HistoryResult,
  type IndexResult,
  type MemoryService,
  type SearchHit,
  type SearchOptions,
  type SearchResult,
  type WriteManyResult,
  type WriteResult,
} from './service.js'

export const INDEX_KEY = 'index'
const factInput = validator(FactInputSchema)
const searchInput = validator(SearchInputSchema)
const forgetInput = validator(ForgetInputSchema)

/** Facts: write (dedup, supersede, gapless ids), the index, search, listing. Each operation reads the facts revision once. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
export function createMemory(ctx: PluginHost): MemoryService {
  const { storage, retriever, config } = ctx
  const store = createFactStore(ctx)

  /**
   * INDEX.md rendered from the write section's catalog and saved, then the catalog saved as of
   * `revision`. INDEX.md is derived from the facts, so relaxed: a power cut may roll it back, and the
   * catalog head written after it names its text's checksum, so `readIndex` rebuilds an index the
   * head does not describe.
   */
  async function saveIndex(facts: WriteSet, revision: string): Promise<MemoryIndex> {
    const index = await facts.index(config.indexTokenBudget, dayOf(ctx.now()))
    await storage.put('meta', INDEX_KEY, index.text, { durability: 'relaxed' })
    await store.wrote(revision, facts, index.text)
    return index
  }

  /**
   * After a fact was stored: the index saved, or, when that fails (INDEX.md unwritable, the disk
   * full), the index as it should be and why it is stale. The fact is kept either way, so the
   * write succeeds with a warning rather than failing for data that was stored.
   */
  async function saveIndexAfterWrite(
    facts: WriteSet,
    revision: string,
  ): Promise<{ index: MemoryIndex; stale?: string }> {
    try {
      return { index: await saveIndex(facts, revision) }
    } catch (error) {
      await store.wrote(revision, facts)
      return { index: await facts.index(config.indexTokenBudget, dayOf(ctx.now())), stale: (error as Error).message }
    }
  }

  const staleLine = (why: string) =>
    `warning: the fact is stored, but INDEX.md could not be rewritten (${why}); run foundry index once that is fixed`

  /**
   * For servers, once after start: the write catalog brought up to date (rebuilt and saved when it
   * does not describe the facts, as after a copy or a restore), then the retriever, then the retriever
   * loaded whole. One after the other: two full reads at once would hold twice the memory. `'search'`:
   * of the retriever, only what every search reads (its postings left to the searches that need them).
   */
  async function warm(what: 'search' | 'all' = 'all'): Promise<void> {
    const revision = await store.revision()
    await store.catchUp(revision)
    await syncRetriever(revision)
    await retriever.warm?.({ postings: what === 'all' })
  }

  /** Bring the retriever up to `revision`: the changed facts when the store can say which, else all. */
  async function syncRetriever(revision: string): Promise<void> {
    const have = await retriever.revision()
    if (have === revision) return
    const keys = have !== undefined && storage.changes ? await storage.changes('facts', have) : undefined
    const today = dayOf(ctx.now())
    if (keys) {
      const current: Fact[] = []
      const remove: string[] = []
      for (const key of new Set(keys)) {
        const fact = await store.read(key)
        if (fact && isActive(fact, today)) current.push(fact)
        else remove.push(key)
      }
      // A writer that died between storing a fact and marking the one it supersedes left both active
      // on disk: the newer one wins here, as it does in the fact set.
      const replaced = new Set(current.flatMap((f) => claimOf(f) ?? []))
      const upsert: RetrievalDoc[] = current.filter((f) => !replaced.has(f.id)).map(toRetrievalDoc)
      remove.push(...replaced)
      await retriever.apply({ revision, upsert, remove })
      return
    }
    // Everything, read a page at a time into documents (never every fact at once), with the repair
    // every reader makes: an active fact a newer one names in `supersedes` is left out.
    const docs: RetrievalDoc[] = []
    const claimed = new Set<string>()
    await store.pages((page) => {
      for (const fact of page) {
        const older = claimOf(fact)
        if (older !== undefined) claimed.add(older)
        if (isActive(fact, today)) docs.push(toRetrievalDoc(fact))
      }
    })
    const upsert = claimed.size ? docs.filter((doc) => !claimed.has(doc.id)) : docs
    await retriever.apply({ revision, reset: true, upsert, remove: [] })
  }

  async function write(raw: unknown, options?: FactWriteOptions): Promise<WriteResult> {
    const input: FactInput = factInput.parse(raw, 'memory_write input')
    const before = await retriever.revision()
    // What the write reads, read before the section: inside, it is caught up from the change log.
    const ahead = await store.ahead([input])
    const outcome = await storage.exclusive(async () => {
      const { revision, facts } = await store.section({ inputs: [input], ahead })
      const plan = planWrite(input, facts, ctx.now())
      if (plan.action !== 'duplicate' && options?.author) plan.fact.author = options.author
      if (plan.action === 'duplicate') {
        const index = await facts.index(config.indexTokenBudget, dayOf(ctx.now()))
        await store.kept(revision, facts)
        return { plan, revision, after: revision, index, stale: undefined }
      }
      // The new fact first, then the old one marked: a crash in between leaves the new fact naming
      // the old in `supersedes`, and every reader (the fact set, the retriever sync) repairs that.
      await storage.put('facts', plan.fact.id, plan.fact)
      if (plan.superseded) await storage.put('facts', plan.superseded.id, plan.superseded)
      await facts.set(plan.fact)
      if (plan.superseded) await facts.set(plan.superseded)
      for (const repaired of facts.takeRepairs()) await storage.put('facts', repaired.id, repaired)
      const after = await store.revision()
      const { index, stale } = await saveIndexAfterWrite(facts, after)
      return { plan, revision, after, index, stale }
    })
    const { plan } = outcome
    if (plan.action === 'duplicate') return writeResult(plan, outcome.index)
    // Keep the retriever in step when it was current before the write; otherwise the next search syncs it.
    if (before === outcome.revision)
      await retriever.apply({
        revision: outcome.after,
        upsert: [toRetrievalDoc(plan.fact)],
        remove: plan.superseded ? [plan.superseded.id] : [],
      })
    return writeResult(plan, outcome.index!, outcome.stale)
  }

  /**
   * Many facts in one section: each planned in turn against the facts and the batch's earlier ones,
   * then stored with two barriers: the new facts as created (each naming what it supersedes), then
   * the facts they mark superseded. A crash between the two leaves what a crash of a single write
   * leaves, which every reader repairs. Planning throws before anything is stored.
   */
  async function writeMany(raw: unknown, options?: FactWriteOptions): Promise<WriteManyResult> {
    const inputs = batchInputs(raw, dayOf(ctx.now()))
    const before = await retriever.revision()
    const ahead = await store.ahead(inputs)
    const outcome = await storage.exclusive(async () => {
      // Every fact's candidates loaded up front, where a stale catalog is still rebuilt from a full read.
      const { revision, facts } = await store.section({ inputs, ahead })
      const plans: WritePlan[] = []
      const created: Fact[] = []
      const marked = new Map<string, Fact>()
      try {
        // Each fact as a single write would plan it: its candidates loaded (the batch's earlier facts
        // among them), planned against the catalog, then recorded there.
        for (const [i, input] of inputs.entries()) {
          await facts.prepare(input)
          const plan = atPosition(i, () => planWrite(input, facts, ctx.now()))
          plans.push(plan)
          if (plan.action === 'duplicate') continue
          if (options?.author) plan.fact.author = options.author
          created.push(plan.fact)
          await facts.set(plan.fact)
          if (plan.superseded) {
            await facts.set(plan.superseded)
            marked.set(plan.superseded.id, plan.superseded)
          }
        }
        if (!created.length) {
          const index = await facts.index(config.indexTokenBudget, dayOf(ctx.now()))
          await store.kept(revision, facts)
          return { plans, revision, after: revision, created, marked, index, stale: undefined }
        }
        await storage.putMany(
          'facts',
          created.map((fact) => ({ key: fact.id, value: fact })),
        )
        const second = [...marked.values(), ...facts.takeRepairs()]
        if (second.length)
          await storage.putMany(
            'facts',
            second.map((fact) => ({ key: fact.id, value: fact })),
          )
      } catch (error) {
        store.discard(facts) // the draft may hold facts that were never stored
        throw error
      }
      const after = await store.revision()
      const { index, stale } = await saveIndexAfterWrite(facts, after)
      return { plans, revision, after, created, marked, index, stale }
    })
    const { index } = outcome
    if (outcome.created.length && before === outcome.revision) {
      const upsert = outcome.created.filter((fact) => !outcome.marked.has(fact.id)).map(toRetrievalDoc)
      await retriever.apply({ revision: outcome.after, upsert, remove: [...outcome.marked.keys()] })
    }
    const results = outcome.plans.map((plan) => writeResult(plan, index, outcome.stale))
    const { text: _text, ...figures } = index
    const lines = [
      ...results.map((r) => r.text.slice(0, r.text.indexOf('\n'))),
      `Index: ${indexSummary(index)} over budget.`,
    ]
    if (outcome.stale) lines.push(staleLine(outcome.stale))
    return { text: lines.join('\n'), results, index: figures, ...(outcome.stale && { indexStale: outcome.stale }) }
  }

  /** What `write` returns for a plan carried out: the seed's two lines, then the similar facts and a stale index, when any. */
  function writeResult(plan: WritePlan, index: MemoryIndex, stale?: string): WriteResult {
    if (plan.action === 'duplicate')
      return result(
        'duplicate',
        plan.existing.id,
        undefined,
        index,
        `exists: ${plan.existing.id} (identical fact, nothing written)`,
      )
    const head = `created: ${plan.fact.id}${plan.superseded ? ` (supersedes ${plan.superseded.id})` : ''}`
    const out = result('created', plan.fact.id, plan.superseded?.id, index, head)
    if (plan.similar.length) {
      out.similar = plan.similar.map(({ fact, reason }) => ({ id: fact.id, title: fact.title, reason }))
      // After the seed's lines: the close facts left active, so the writer can still replace one.
      for (const { id, title, reason } of out.similar)
        out.text += `\nsimilar: ${id} "${title}" (not superseded: ${reason}; pass supersedes: "${id}" to replace it)`
    }
    if (stale) {
      out.indexStale = stale
      out.text += `\n${staleLine(stale)}`
    }
    return out
  }

  function result(
    action: WriteResult['action'],
    id: string,
    supersedes: string | undefined,
    index: MemoryIndex,
    head: string,
  ): WriteResult {
    const { text: _text, ...figures } = index
    const out: WriteResult = { text: `${head}\nIndex: ${indexSummary(index)} over budget.`, action, id, index: figures }
    if (supersedes) out.supersedes = supersedes
    return out
  }

  /** A query of fact ids only: those facts, whatever their status; undefined for any other query. */
  async function lookup(query: string, revision: string): Promise<SearchResult | undefined> {
    const ids = factIdsOf(query)
    if (!ids) return undefined
    const today = dayOf(ctx.now())
    const hits: SearchHit[] = []
    const missing: string[] = []
    for (const id of ids) {
      const fact = await store.hit(id, revision)
      if (fact) hits.push({ fact, score: 0, relevance: 0 })
      else missing.push(id)
    }
    const blocks = hits.map(({ fact }) => [renderFactBlock(fact), statusLine(fact, today)].filter(Boolean).join('\n'))
    if (missing.length)
      blocks.push(`Unknown fact id${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}. ${ctx.hints.listFacts}`)
    return { text: blocks.join('\n\n'), query, hits, ...(missing.length ? { missing } : {}) }
  }

  async function search(raw: unknown, options: SearchOptions = {}): Promise<SearchResult> {
    const input: SearchInput = searchInput.parse(raw, 'memory_search input')
    const revision = await store.revision()
    const named = await lookup(input.query, revision)
    if (named) return named
    const limit = input.limit ?? config.memoryRetrieval.maxFacts
    await syncRetriever(revision)
    // Ask for more than `limit`: the retriever may still hold facts that expired since it was updated.
    const query = {
      text: input.query,
      limit: limit * 2 + 4,
      ...(input.type && { type: input.type }),
      ...(input.scope && { scope: input.scope }),
    }
    let found = await retriever.search(query)
    if (!found.length && (await retriever.revision()) !== revision) {
      // The retriever lost its state (a snapshot removed under it), or took another process's newer
      // one: index again or catch up, once.
      await syncRetriever(revision)
      found = await retriever.search(query)
    }
    const today = dayOf(ctx.now())
    const hits: SearchHit[] = []
    // The hits' facts asked for together, as many as are still needed each time (a storage that
    // gathers reads, PostgreSQL, fetches each round in one round trip).
    for (let next = 0; next < found.length && hits.length < limit; ) {
      const round = found.slice(next, (next += limit - hits.length))
      const facts = await Promise.all(round.map((hit) => store.hit(hit.id, revision)))
      round.forEach((hit, i) => {
        const fact = facts[i]
        if (fact && isActive(fact, today)) hits.push({ fact, score: hit.score, relevance: 0 })
      })
    }
    if (hits.length) {
      const unit = relevanceUnit(await store.activeCount(revision), retriever.scoreScale)
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
      return {
        text: parts.join('\n\n'),
        query: input.query,
        hits: kept,
        ...(brief.length && { brief: brief.length }),
        ...extra,
      }
    }
    const active = await store.activeCount(revision)
    const text =
      `No stored fact matches "${input.query}". Memory holds ${active} active facts.` +
      (dropped ? `\n${droppedLine(dropped, floor)}` : '')
    return { text, query: input.query, hits: kept, active, ...extra }
  }

  /** Rebuild INDEX.md from a full read of storage (picks up facts edited by other means). */
  async function index(): Promise<IndexResult> {
    const { built, revision } = await storage.exclusive(() => rebuildIndex({ force: true }))
    await syncRetriever(revision)
    const path = storage.locate('meta', INDEX_KEY)
    return { text: `Rebuilt ${path}\n${indexSummary(built)}.`, path, index: built }
  }

  /** INDEX.md as stored; rebuilt first when missing, when facts changed by other means, or when a listed fact has expired. */
  async function readIndex(): Promise<string> {
    const revision = await store.revision()
    const stored = await storage.get('meta', INDEX_KEY)
    if (stored !== undefined && (await store.indexCurrent(revision, stored))) return stored
    return (await storage.exclusive(() => rebuildIndex())).built.text
  }

  /** Inside the section: the catalog brought up to date (`force`: from a full read), its repairs stored, INDEX.md saved. */
  async function rebuildIndex(options: { force?: boolean } = {}): Promise<{ built: MemoryIndex; revision: string }> {
    const facts = await store.facts(await store.revision(), options)
    for (const repaired of facts.takeRepairs()) await storage.put('facts', repaired.id, repaired)
    const revision = await store.revision()
    return { built: await saveIndex(facts, revision), revision }
  }

  const readFacts = async () => store.reader(await store.revision())

  async function list(options: FactListOptions = {}): Promise<Fact[]> {
    const status = options.status ?? 'active'
    const today = dayOf(ctx.now())
    const expired = (f: Fact) => f.status === 'active' && !isActive(f, today)
    return [...(await readFacts()).values()]
      .filter((f) => !options.type || f.type === options.type)
      .filter(
        (f) =>
          status === 'all' ||
          (status === 'expired' ? expired(f) : status === 'active' ? isActive(f, today) : f.status === status),
      )
      .sort((a, b) => factNumber(a.id) - factNumber(b.id))
  }

  async function page(
    options: FactListOptions & { limit: number; newest?: boolean },
  ): Promise<{ facts: Fact[]; total: number }> {
    const { limit, newest, ...filter } = options
    const pick = <T>(all: T[]) => (newest ? all.slice(-limit).reverse() : all.slice(0, limit))
    const page =
      (filter.status ?? 'active') === 'active' && !filter.type
        ? await store.activePage(await store.revision(), Math.max(0, limit), newest)
        : undefined
    if (!page) {
      const facts = await list(filter)
      return { facts: limit > 0 ? pick(facts) : [], total: facts.length }
    }
    const facts: Fact[] = []
    for (const id of page.ids) {
      const fact = await store.read(id)
      if (fact) facts.push(fact)
    }
    return { facts, total: page.total }
  }

  async function get(id: string): Promise<Fact> {
    const fact = await store.fact(id, await store.revision())
    if (!fact) throw new FoundryError('NOT_FOUND', `No fact ${id}. ${ctx.hints.listFacts}`)
    return fact
  }

  async function history(id: string): Promise<HistoryResult> {
    const revision = await store.revision()
    const fact = await store.fact(id, revision)
    if (!fact) throw new FoundryError('NOT_FOUND', `No fact ${id}. ${ctx.hints.listFacts}`)
    const chain = await historyOf(fact, (other) => store.read(other), dayOf(ctx.now()))
    return { text: chain.map(historyLine).join('\n'), id, chain }
  }

  async function forget(id: string, reason: string): Promise<ForgetResult> {
    const input: ForgetInput = forgetInput.parse({ id, reason }, 'memory_forget input')
    const why = input.reason.trim().replace(/\s+/g, ' ')
    if (!why)
      throw new FoundryError('INVALID_INPUT', 'reason must not be empty: say why the fact is wrong or no longer holds')
    const before = await retriever.revision()
    const outcome = await storage.exclusive(async () => {
      const revision = await store.revision()
      const facts = await store.facts(revision)
      const fact = await facts.fact(input.id)
      if (!fact) throw new FoundryError('NOT_FOUND', `No fact ${input.id}. ${ctx.hints.listFacts}`)
      if (fact.status === 'superseded')
        throw new FoundryError(
          'INVALID_INPUT',
          `${fact.id} is superseded${fact.supersededBy ? ` by ${fact.supersededBy}` : ''} and already out of the index and search; forget the active fact of its history instead`,
        )
      if (fact.status === 'forgotten')
        throw new FoundryError(
          'INVALID_INPUT',
          `${fact.id} is already forgotten${fact.forgottenReason ? ` (${fact.forgottenReason})` : ''}; nothing to do`,
        )
      const forgotten: Fact = { ...fact, status: 'forgotten', forgotten: isoTime(ctx.now()), forgottenReason: why }
      await storage.put('facts', forgotten.id, forgotten)
      await facts.set(forgotten)
      for (const repaired of facts.takeRepairs()) await storage.put('facts', repaired.id, repaired)
      const after = await store.revision()
      const { index, stale } = await saveIndexAfterWrite(facts, after)
      return { fact: forgotten, revision, after, index, stale }
    })
    // Keep the retriever in step when it was current before; otherwise the next search syncs it.
    if (before === outcome.revision)
      await retriever.apply({ revision: outcome.after, upsert: [], remove: [outcome.fact.id] })
    const { text: _text, ...figures } = outcome.index
    const { fact } = outcome
    let text = `forgotten: ${fact.id}\nIndex: ${indexSummary(outcome.index)} over budget.`
    // Forgetting does not bring back what the fact replaced: say so, and how to restore it.
    if (fact.supersedes)
      text += `\n${fact.supersedes}, which it superseded, stays superseded; write its statement again to restore it.`
    if (outcome.stale) text += `\n${staleLine(outcome.stale)}`
    return {
      text,
      id: fact.id,
      reason: why,
      forgotten: fact.forgotten!,
      index: figures,
      ...(outcome.stale && { indexStale: outcome.stale }),
    }
  }

  const activeCount = async () => store.activeCount(await store.revision())

  return { write, writeMany, search, index, readIndex, list, page, get, history, forget, activeCount, warm }
}

/** The memory service as a kernel plugin: every operation records its duration and outcome. */
export const memoryPlugin = definePlugin({
  name: 'memory',
  setup: createMemory,
  trace: {
    write: {
      kind: 'memory_write',
      data: (r) => ({ action: r.action, id: r.id, ...(r.supersedes && { supersedes: r.supersedes }) }),
    },
    writeMany: {
      kind: 'memory_write',
      data: (r) => ({ facts: r.results.length, created: r.results.filter((w) => w.action === 'created').length }),
    },
    search: { kind: 'memory_search', data: (r) => ({ hits: r.hits.length, ...(r.dropped && { dropped: r.dropped }) }) },
    index: { kind: 'memory_index', data: (r) => ({ listed: r.index.listed, total: r.index.total }) },
    readIndex: 'memory_read_index',
    list: { kind: 'memory_list', data: (r) => ({ facts: r.length }) },
    page: { kind: 'memory_list', data: (r) => ({ facts: r.facts.length, total: r.total }) },
    get: 'memory_get',
    history: { kind: 'memory_history', data: (r) => ({ id: r.id, facts: r.chain.length }) },
    forget: { kind: 'memory_forget', data: (r) => ({ id: r.id }) },
  },
})
