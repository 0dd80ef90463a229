import MiniSearch, { type Options, type SearchOptions } from 'minisearch'
import type { Retriever } from '@foundry/kernel'
import {
  processTerm,
  type RetrievalChanges,
  type RetrievalDoc,
  type RetrievalHit,
  type RetrievalQuery,
  type SnapshotStore,
  tokenize,
} from '@foundry/kernel/adapter'
import { rawMatches, searchLookup, termLookup, type RawHit } from './internals.js'
import { LazyIndex, type TermMatching } from './lazy.js'
import { readHead, writeSnapshot, type Head } from './snapshot.js'

export interface MinisearchRetrieverOptions {
  /**
   * Extra weight of title and tag words. Every document is scored as one text (title, tags, body, as
   * flat BM25 baselines do), plus these weights on title and tag matches. Default title 0.3, tags 0.2.
   */
  boost?: { title?: number; tags?: number }
  /**
   * Match query terms the index does not contain as prefixes of indexed terms (a word still being
   * typed: `kubernet`), for terms of at least this length. Default 4; 0 turns it off. A word the
   * index knows is taken as written, which keeps a query's cost to its own postings.
   */
  prefixMinLength?: number
  /**
   * Fuzzy matching for query terms the index does not contain (a known word is not a typo): maximum
   * edit distance as a fraction of the term length, for terms of 5+ characters. Default 0.2; 0 turns it off.
   */
  fuzzy?: number
  /** BM25 parameters. Default k 0.9, b 0.4, d 0: Lucene's BM25 as the BEIR baselines run it. */
  bm25?: { k: number; b: number; d: number }
  /** Changes applied between two snapshots. Default 256; a full rebuild is snapshotted at once. */
  snapshotEvery?: number
  /**
   * Changes worth a snapshot when the process closes (`flush()`): replaying them from storage in the
   * next process would cost more than writing the snapshot now. Default 32; `flush(true)` persists any.
   */
  flushAt?: number
  /** Searches served from a lazily opened snapshot before loading it whole. Default 2: short-lived processes never pay for the whole index. */
  lazySearches?: number
  /**
   * Read MiniSearch's internals (term lookup, scores before its terms-matched multiplier; checked
   * against the pinned version) for speed. Default true; false always takes the public-API path
   * those reads fall back to when their shape is gone: the same hits and scores, 1.5 to 2 times
   * slower (15 ms a search against 7 to 10 over 10 000 `distractors()`). The suite runs both.
   */
  internals?: boolean
}

function* filtered(
  hits: Iterable<RawHit>,
  wanted: (stored: Record<string, unknown> | undefined) => boolean,
): Iterable<RetrievalHit> {
  for (const hit of hits) if (wanted(hit.stored)) yield hit
}

/** The best `limit` hits by score (ties by id), without sorting every match. */
function topHits(matches: Iterable<RetrievalHit>, limit: number): RetrievalHit[] {
  const top: RetrievalHit[] = []
  const before = (a: RetrievalHit, b: RetrievalHit) => a.score > b.score || (a.score === b.score && a.id < b.id)
  for (const hit of matches) {
    if (top.length === limit && !before(hit, top[limit - 1]!)) continue
    let at = top.length
    while (at > 0 && before(hit, top[at - 1]!)) at--
    top.splice(at, 0, { id: hit.id, score: hit.score })
    if (top.length > limit) top.pop()
  }
  return top
}

/**
 * The default retriever: MiniSearch with BM25, Porter stemming, stop words, prefix and fuzzy
 * matching, and field boosts; text written without spaces (Chinese, Japanese, Thai…) is split into
 * words by `Intl.Segmenter` (`tokenize`). It snapshots itself into the store the kernel attaches; a
 * new process opens the snapshot lazily and reads only the postings its first queries need.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
export function minisearchRetriever(options: MinisearchRetrieverOptions = {}): Retriever {
  const indexOptions: Options<RetrievalDoc> = {
    fields: ['text', 'title', 'tags'],
    storeFields: ['type', 'scope'],
    extractField: (doc, field) => {
      if (field === 'text') return `${doc.title}\n${doc.tags.join(' ')}\n${doc.body}`
      if (field === 'tags') return doc.tags.join(' ')
      return (doc as unknown as Record<string, string>)[field]
    },
    tokenize,
    processTerm,
    // Vacuuming runs between two of our calls, at a safe point (`vacuumIfDirty`): MiniSearch's own
    // runs in timer batches, which a write or a search landing between two batches broke (a
    // TypeError out of a timer ended the process under a burst of requests).
    autoVacuum: false,
  }
  const prefixMin = options.prefixMinLength ?? 4
  const fuzzy = options.fuzzy ?? 0.2
  const matching: TermMatching = {
    tokenize,
    processTerm,
    prefix: (term) => prefixMin > 0 && term.length >= prefixMin,
    fuzzy: (term) => (fuzzy > 0 && term.length >= 5 ? Math.min(6, Math.round(term.length * fuzzy)) : 0),
  }
  const searchOptions: SearchOptions = {
    boost: { text: 1, title: options.boost?.title ?? 0.3, tags: options.boost?.tags ?? 0.2 },
    maxFuzzy: 6,
    bm25: options.bm25 ?? { k: 0.9, b: 0.4, d: 0 },
    combineWith: 'OR',
  }
  const snapshotEvery = options.snapshotEvery ?? 256
  const flushAt = options.flushAt ?? 32
  const lazyLimit = options.lazySearches ?? 2
  const internals = options.internals ?? true

  let full: MiniSearch<RetrievalDoc> | undefined
  let lazy: LazyIndex | undefined
  /** Changes applied on top of a lazily opened snapshot: a document, or null for a removal. */
  const overlay = new Map<string, RetrievalDoc | null>()
  let revision: string | undefined
  let store: SnapshotStore | undefined
  let head: Head | undefined
  let opened = false
  /** A head was read but its parts not yet: a write-only process never reads them. */
  let unopened = false
  let pending = 0
  let lazySearches = 0

  /** Read the stored snapshot's head the first time anything asks; its parts wait for a search. */
  async function ready(): Promise<void> {
    if (opened) return
    opened = true
    if (!store || full) return
    const found = await readHead(store)
    if (!found) return
    head = found
    revision = found.revision
    unopened = true
  }

  /** The snapshot's documents and dictionary, read on first need; false when they are gone. */
  async function openLazy(): Promise<boolean> {
    if (!unopened) return !!lazy
    unopened = false
    lazy = (store && head && (await LazyIndex.open(store, head, indexOptions))) || undefined
    if (!lazy) forget() // removed under us, or unreadable: it is only a cache, the kernel re-indexes
    return !!lazy
  }

  function forget() {
    full = undefined
    lazy = undefined
    overlay.clear()
    revision = undefined
  }

  function applyOverlay(index: MiniSearch<RetrievalDoc>) {
    for (const [id, doc] of overlay) {
      if (index.has(id)) index.discard(id)
      if (doc) index.add(doc)
    }
  }

  async function hydrate(): Promise<MiniSearch<RetrievalDoc> | undefined> {
    if (!(await openLazy()) || !lazy) return full
    try {
      full = await lazy.full()
      applyOverlay(full)
      vacuumIfDirty(full)
      lazy = undefined
      overlay.clear()
    } catch {
      forget() // a build removed under us: the kernel will reset from storage
    }
    return full
  }

  async function snapshot(): Promise<void> {
    const index = await hydrate()
    if (!store || !index || revision === undefined) return
    try {
      head = await writeSnapshot(store, index.toJSON(), revision, head)
    } catch {
      // A snapshot is only a cache: a read-only or full disk costs the next process a re-index, never
      // this search or write. Try again after the next `snapshotEvery` changes.
    }
    pending = 0
  }

  function run(index: MiniSearch<RetrievalDoc>, query: RetrievalQuery): RetrievalHit[] {
    const { type, scope } = query
    const wanted = (stored: Record<string, unknown> | undefined) =>
      (!type || stored?.type === type) && (!scope || stored?.scope === scope)
    const known = (internals && termLookup(index)) || searchLookup(index)
    const options: SearchOptions = {
      ...searchOptions,
      prefix: (term) => !known(term) && matching.prefix(term),
      fuzzy: (term) => (known(term) ? false : matching.fuzzy(term) || false),
    }
    // Ranked by plain BM25: MiniSearch's search() multiplies each score by the number of query terms
    // matched, which costs 0.03 nDCG@10 on SciFact; rawMatches() reads the scores before that.
    const raw = internals ? rawMatches(index, query.text, options) : undefined
    if (raw) return topHits(filtered(raw, wanted), query.limit)
    const results = index.search(query.text, { ...options, filter: (r) => wanted(r) })
    return topHits(
      results.map((r) => ({ id: String(r.id), score: r.score / (r.queryTerms.length || 1) })),
      query.limit,
    )
  }

  /**
   * Discarded documents' postings removed once they are a tenth of the index (MiniSearch's default
   * conditions), synchronously: with one batch its vacuum never yields, so nothing interleaves.
   */
  function vacuumIfDirty(index: MiniSearch<RetrievalDoc>) {
    if (index.dirtCount >= 20 && index.dirtFactor >= 0.1 && !index.isVacuuming)
      void index.vacuum({ batchSize: Number.MAX_SAFE_INTEGER })
  }

  /**
   * Every call runs alone: a search awaiting a snapshot part never sees the index half replaced by
   * an apply, and two applies never interleave (the kernel's concurrent requests call them at once).
   */
  let tail: Promise<unknown> = Promise.resolve()
  function serial<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return (...args) => {
      const run = tail.then(() => fn(...args))
      tail = run.catch(() => undefined)
      return run
    }
  }

  return {
    name: 'minisearch',
    // `calibrateScoreScale(minisearchRetriever())` (@foundry/kernel/testing) measures 1.000: a body word
    // scores its BM25 IDF once (the title and tag boosts add only for words there). test/minisearch.test.ts checks it.
    scoreScale: 1,
    capabilities: { stemming: true, prefix: prefixMin > 0, fuzzy: fuzzy > 0, segmentation: true },

    revision: serial(async () => {
      await ready()
      return revision
    }),

    apply: serial(async (changes: RetrievalChanges) => {
      await ready()
      const upsert = [...new Map(changes.upsert.map((d) => [d.id, d])).values()] // the last version of an id wins
      if (changes.reset || (!full && !lazy && !unopened)) {
        full = new MiniSearch(indexOptions)
        full.addAll(upsert)
        lazy = undefined
        unopened = false
        overlay.clear()
        revision = changes.revision
        if (changes.reset) await snapshot() // a full rebuild is worth keeping at once
        return
      }
      if (lazy || unopened) {
        for (const id of changes.remove) overlay.set(id, null)
        for (const doc of upsert) overlay.set(doc.id, doc)
      } else if (full) {
        for (const id of changes.remove) if (full.has(id)) full.discard(id)
        for (const doc of upsert) full.has(doc.id) ? full.replace(doc) : full.add(doc)
        vacuumIfDirty(full)
      }
      revision = changes.revision
      pending += upsert.length + changes.remove.length
      if (pending >= snapshotEvery) await snapshot()
    }),

    search: serial(async (query: RetrievalQuery): Promise<RetrievalHit[]> => {
      await ready()
      if (unopened) await openLazy()
      if (lazy && ++lazySearches > lazyLimit) await hydrate()
      if (lazy) {
        const partial = await lazy.partial(query.text, matching, overlay.keys()).catch(() => undefined)
        if (partial) {
          applyOverlay(partial)
          return run(partial, query)
        }
        await hydrate()
      }
      return full ? run(full, query) : []
    }),

    attach(target) {
      store = target
    },

    warm: serial(async () => {
      await ready()
      await hydrate()
    }),

    flush: serial(async (all = false) => {
      if (pending > 0 && (all || pending >= flushAt)) await snapshot()
    }),
  }
}
