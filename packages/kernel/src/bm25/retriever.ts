import { processTerm, tokenize } from '../analyze.js'
import type {
  RetrievalChanges,
  RetrievalHit,
  RetrievalQuery,
  Retriever,
  RetrieverCapabilities,
  SnapshotStore,
} from '../retrieval.js'
import { englishTerm, englishTokens } from './english.js'
import type { Analyzer, Scoring } from './analyzer.js'
import { CorruptSnapshot } from './corrupt-snapshot.js'
import { FlatIndex } from './flat-index.js'
import { FORMAT, readHead, readSnapshot, readWritten, removeBuild, writeSnapshot, type Head } from './snapshot.js'
import { monotonicMs } from '../clock.js'

export interface Bm25RetrieverOptions {
  /**
   * How text becomes terms. `default`: words segmented (also in scripts written without spaces),
   * Lucene's stop words, Porter stems. `english`: the terms of PostgreSQL's `to_tsvector('english')`
   * (its parser's words, its stop words, Snowball's English stems) without a database; no
   * segmentation of scripts written without spaces.
   */
  analysis?: 'default' | 'english'
  /**
   * How a document's terms score. `minisearch` (the default): the MiniSearch retriever's scores, BM25
   * of the whole text plus BM25 of the title and of the tags, each with its own statistics, lengths in
   * distinct words. `postgres`: the Postgres retriever's (`postgresRetriever`), one BM25 whose term
   * frequency counts a title occurrence twice and a tag occurrence 1.5 times, lengths in terms, k1 1.2,
   * b 0.75, each query term once, a word the index lacks widened as there (its 32 commonest
   * continuations, else its 8 nearest typos); with `analysis: 'english'` a query gets the Postgres
   * retriever's hits and scores (to rounding).
   */
  ranking?: 'minisearch' | 'postgres'
  /**
   * Extra weight of title and tag words over the whole text's. Default title 0.3, tags 0.2 (as the
   * MiniSearch retriever); ranked `postgres`, what a title and a tag occurrence add to a term's
   * frequency: title 1, tags 0.5.
   */
  boost?: { title?: number; tags?: number }
  /** Prefix-match query words the index lacks, this long or longer. Default 4; 0 turns it off. */
  prefixMinLength?: number
  /** Edit distance for query words the index lacks, as a fraction of their length (5+ characters). Default 0.2; 0 turns it off. */
  fuzzy?: number
  /** BM25 parameters. Default k 0.9, b 0.4: Lucene's BM25 as the BEIR baselines run it; ranked `postgres`, k 1.2, b 0.75. */
  bm25?: { k: number; b: number }
  /** Changes after which a snapshot is due; it is written when the retriever has been idle `idleMs`. Default 256. */
  snapshotEvery?: number
  /** Quiet time before a due snapshot is written, in milliseconds. Default 200. */
  idleMs?: number
  /** Changes worth a snapshot when the process closes (`flush()`). Default 32; `flush(true)` persists any. */
  flushAt?: number
  /**
   * What a process keeps of a restored snapshot's postings: `postingsBytes` of decoded postings
   * (default 4 MB) and `blockChars` of postings blocks read (default 2M characters, ~96 blocks); beyond
   * them the least recently read are dropped and read again from the store when a search needs them.
   */
  kept?: { postingsBytes?: number; blockChars?: number }
}

/**
 * BM25 over an inverted index in typed arrays (`FlatIndex`): the default retriever's analyzer
 * (segmentation, stop words, Porter stems), scores, field boosts, prefix and typo matching, at the
 * cost of a flat-array BM25. Snapshots are compact (varints in base64, no JSON parse of postings)
 * and written when the retriever is idle, never inside a write.
 */
export function bm25Retriever(options: Bm25RetrieverOptions = {}): Retriever {
  const { analyzer, scoring, format, capabilities } = analysisOf(options)
  const snapshotEvery = options.snapshotEvery ?? 256
  const idleMs = options.idleMs ?? 200
  const flushAt = options.flushAt ?? 32

  let index: FlatIndex | undefined
  let revision: string | undefined
  let store: SnapshotStore | undefined
  let head: Head | undefined
  /** A stored head of another format or analysis: its build is removed once this retriever's replaces it. */
  let stale: Head | undefined
  /** Whether the stored head was read; whether the build it names was read into `index`. */
  let headRead = false
  let loaded = false
  let pending = 0
  let lastCall = 0
  let timer: ReturnType<typeof setTimeout> | undefined

  /** The stored head, read once: enough to answer `revision()` without reading the index. */
  async function readStoredHead(): Promise<void> {
    if (headRead) return
    headRead = true
    if (!store || index) return
    const stored = await readHead(store)
    if (stored?.format === format) head = stored
    else stale = stored
    revision = head?.revision
  }

  /** The index the head names, read on first need; undefined when there is none or it is gone. */
  async function load(): Promise<FlatIndex | undefined> {
    await readStoredHead()
    if (loaded || index) return index
    loaded = true
    if (!store || !head) return undefined
    const restored = new FlatIndex(analyzer, scoring, options.kept?.postingsBytes)
    if (await readSnapshot(store, head, restored, options.kept?.blockChars)) index = restored
    else if (await adoptNewer()) return load()
    else revision = undefined // removed under us, or unreadable: it is only a cache, the kernel re-indexes
    return index
  }

  /**
   * The index's build is gone or unreadable: when another process's newer build replaced it, that one
   * is read on next need instead (its revision is the retriever's: the kernel catches up from it);
   * true then. Else the kernel re-indexes.
   */
  async function adoptNewer(): Promise<boolean> {
    index = undefined
    const stored = store && head ? await readHead(store).catch(() => undefined) : undefined
    if (stored?.format !== format || stored.build === head?.build) return false
    head = stored
    revision = head.revision
    loaded = false
    return true
  }

  /** The index found corrupt where it was read (a postings block gone or unfit). */
  async function dropIndex(): Promise<void> {
    if (!(await adoptNewer())) revision = undefined // only a cache: no revision, so the kernel re-indexes
  }

  /**
   * Write a snapshot, then read its postings from it (`readWritten`; an index dropped meanwhile gives
   * way to the new build). With `pause`: beside searches (`Aside`; the replaced build removed after
   * any under way), writes waiting for it. Else the caller is a serial call.
   */
  async function snapshot(pause?: () => Promise<void> | undefined): Promise<void> {
    clearTimer()
    if (!store || !index || revision === undefined) return
    const [written, at, replaces] = [index, revision, head ?? stale] // what the build holds and replaces
    try {
      const build = await writeSnapshot(store, written, at, format, pause)
      head = build.head
      stale = undefined
      const fresh = () => new FlatIndex(analyzer, scoring, options.kept?.postingsBytes)
      index = index === written ? await readWritten(written, store, build, fresh, options.kept?.blockChars) : undefined
      loaded = index !== undefined
      if (replaces && replaces.build !== build.head.build) {
        const remove = removeBuild.bind(undefined, store, replaces)
        if (pause) void serial(remove)()
        else await remove()
      }
    } catch {
      // A snapshot is only a cache: a read-only or full disk costs the next process a re-index, never
      // this search or write. Try again after the next `snapshotEvery` changes.
    }
    pending = 0
  }

  /** The snapshot written beside searches, when one is under way: a write (an `apply`) waits for it. */
  const aside = new Aside(() => idleMs - (now() - lastCall))

  function clearTimer() {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }

  /** A due snapshot, written once no call has come for `idleMs`; the timer never keeps a process alive. */
  function scheduleIdle(delay = idleMs) {
    if (timer !== undefined) return
    timer = setTimeout(() => {
      timer = undefined
      const quiet = now() - lastCall
      if (quiet < idleMs) return scheduleIdle(idleMs - quiet)
      void serial(async () => {
        if (pending >= snapshotEvery) aside.start(snapshot)
      })()
    }, delay)
    ;(timer as { unref?(): void }).unref?.()
  }

  /** Every call runs alone: two applies never interleave, and a search never sees half an apply. */
  const serial = serialQueue(() => (lastCall = now()))

  return {
    name: 'bm25',
    // `calibrateScoreScale(bm25Retriever())` (@foundry/kernel/testing) measures 1.000, as for the
    // MiniSearch retriever: the same scores. test/bm25.test.ts checks it.
    scoreScale: 1,
    capabilities,

    revision: serial(async () => {
      await readStoredHead()
      return revision
    }),

    apply: serial(async (changes: RetrievalChanges) => {
      await aside.done()
      const current = changes.reset ? undefined : await load()
      const upsert = [...new Map(changes.upsert.map((d) => [d.id, d])).values()] // the last version of an id wins
      if (!current) {
        index = new FlatIndex(analyzer, scoring)
        for (const doc of upsert) index.add(doc)
        revision = changes.revision
        loaded = true
        pending = upsert.length
        if (changes.reset) await snapshot() // a full rebuild is worth keeping at once
        return
      }
      try {
        for (const id of changes.remove) current.remove(id)
        for (const doc of upsert) current.add(doc)
        if (current.dirty) await current.compact()
      } catch (error) {
        if (!(error instanceof CorruptSnapshot)) throw error
        await dropIndex()
        return
      }
      revision = changes.revision
      pending += upsert.length + changes.remove.length
      if (pending >= snapshotEvery) scheduleIdle()
    }),

    search: serial(async (query: RetrievalQuery): Promise<RetrievalHit[]> => {
      const current = await load()
      if (!current) return []
      try {
        return await searchIn(current, query)
      } catch (error) {
        if (!(error instanceof CorruptSnapshot)) throw error
        await dropIndex()
        return []
      }
    }),

    attach(target) {
      store = target
    },

    warm: serial(async (options?: { postings?: boolean }) => {
      // Documents and tables (or a newer build's), then the blocks that fit what is kept (all, at 10k).
      const index = await load()
      if (options?.postings ?? true) await index?.prefetch().catch(whenCorrupt(dropIndex))
    }),

    flush: serial(async (all = false) => {
      await aside.done()
      if (pending > 0 && (all || pending >= flushAt)) await snapshot()
    }),

    close: serial(async () => {
      clearTimer()
      await aside.done()
    }),
  }
}

/** A rejection handler: `then()` for a snapshot found unfit (only a cache: dropped, and rebuilt as a search would), anything else rethrown. */
const whenCorrupt = (then: () => Promise<void>) => (error: unknown) =>
  error instanceof CorruptSnapshot ? then() : Promise.reject(error)

/** The analyzer and scoring `options` ask for, the snapshot format that names them, and the capabilities they give. */
function analysisOf(options: Bm25RetrieverOptions): {
  analyzer: Analyzer
  scoring: Scoring
  format: string
  capabilities: RetrieverCapabilities
} {
  const english = options.analysis === 'english'
  const prefixMin = options.prefixMinLength ?? 4
  const fuzzy = options.fuzzy ?? 0.2
  const analyzer: Analyzer = {
    tokenize: english ? englishTokens : tokenize,
    processTerm: memoized(english ? englishTerm : processTerm),
    prefix: (term) => prefixMin > 0 && term.length >= prefixMin,
    fuzzy: (term) => (fuzzy > 0 && term.length >= 5 ? Math.min(6, Math.round(term.length * fuzzy)) : 0),
  }
  const ranking = options.ranking ?? 'minisearch'
  const weighted = ranking === 'postgres'
  const { k, b } = options.bm25 ?? (weighted ? { k: 1.2, b: 0.75 } : { k: 0.9, b: 0.4 })
  const title = options.boost?.title ?? (weighted ? 1 : 0.3)
  const scoring: Scoring = { ranking, k, b, title, tags: options.boost?.tags ?? (weighted ? 0.5 : 0.2) }
  // A snapshot names its analysis (`english2`: hosts, signs and URLs read as PostgreSQL reads them)
  // and its ranking (which sets the lengths it keeps): one made otherwise is never read into this index.
  const format = `${FORMAT}${english ? '+english2' : ''}${weighted ? '+postgres' : ''}`
  const capabilities = { stemming: true, prefix: prefixMin > 0, fuzzy: fuzzy > 0, segmentation: !english }
  return { analyzer, scoring, format, capabilities }
}

/** `query`'s hits in `index`, its blocks read first (again when a snapshot written beside replaced its postings meanwhile). */
async function searchIn(index: FlatIndex, query: RetrievalQuery): Promise<RetrievalHit[]> {
  for (let generation = -1; generation !== index.generation; ) {
    generation = index.generation
    await index.prepare(query.text)
  }
  return find(index, query)
}

/** The hits of a query, type and scope filtering by slot. */
function find(index: FlatIndex, query: RetrievalQuery): RetrievalHit[] {
  const { type, scope } = query
  if (!type && !scope) return index.search(query.text, query.limit)
  const typeCode = type ? index.typeCodeOf(type) : -1
  const scopeCode = scope ? index.scopeCodeOf(scope) : -1
  if (typeCode === undefined || scopeCode === undefined) return []
  const { typeOf, scopeOf } = index
  return index.search(
    query.text,
    query.limit,
    (slot) => (typeCode < 0 || typeOf[slot] === typeCode) && (scopeCode < 0 || scopeOf[slot] === scopeCode),
  )
}

/** `processTerm` with its answers kept (Porter stemming is most of an index build; words repeat), up to 50k words. */
function memoized(process: (word: string) => string | null): (word: string) => string | null {
  const known = new Map<string, string | null>()
  return (word) => {
    let term = known.get(word)
    if (term === undefined) {
      if (known.size >= 50_000) known.clear()
      known.set(word, (term = process(word)))
    }
    return term
  }
}

/** The clock for idleness. */
const now = monotonicMs

/** Calls that run one at a time, in the order they were made (`touch` at each call). */
function serialQueue(touch: () => void) {
  let tail: Promise<unknown> = Promise.resolve()
  return <A extends unknown[], R>(fn: (...args: A) => Promise<R>): ((...args: A) => Promise<R>) =>
    (...args) => {
      touch()
      const run = tail.then(() => fn(...args))
      tail = run.catch(() => undefined)
      return run
    }
}

/** Milliseconds of a snapshot's work between two turns given to other calls. */
const SLICE_MS = 8

/**
 * A snapshot written beside the retriever's calls, in slices of `SLICE_MS`: after each, it waits
 * until the calls have been quiet for the idle time (`quietIn` answers how long is left), so searches
 * coming one after another go first and it takes the gaps between them; once a caller waits for it
 * (`done`: a write, a flush, a close), it runs flat out.
 */
class Aside {
  private running: Promise<void> | undefined
  private hurried = false

  constructor(private readonly quietIn: () => number) {}

  /** Start `write` unless one is under way, handing it the pause to await between slices. */
  start(write: (pause: () => Promise<void> | undefined) => Promise<void>): void {
    this.running ??= write(this.pauses()).finally(() => {
      this.running = undefined
      this.hurried = false
    })
  }

  /** The snapshot under way finished, if any (it runs flat out from now on). */
  async done(): Promise<void> {
    if (!this.running) return
    this.hurried = true
    await this.running
  }

  /** A pause every `SLICE_MS` of work: undefined until one is due, then a promise of the next quiet turn. */
  private pauses(): () => Promise<void> | undefined {
    let from = now()
    const turn = (resolve: () => void) => {
      const wait = this.hurried ? 0 : this.quietIn()
      if (wait > 0) setTimeout(() => turn(resolve), wait)
      else {
        from = now()
        resolve()
      }
    }
    return () =>
      now() - from < SLICE_MS ? undefined : new Promise<void>((resolve) => setTimeout(() => turn(resolve), 0))
  }
}
