import type { RetrievalDoc, RetrievalHit } from '../retrieval.js'
import { Dictionary } from './dictionary.js'
import type { Analyzer, Scoring } from './analyzer.js'
import type { Postings } from './postings.js'
import type { PostingsBlocks } from './postings-blocks.js'
import { PostingsCache } from './postings-cache.js'
import { lastQueryTerms, wordsToRead } from './words-to-read.js'
import { SlotIds, type MappedSlots } from './slot-ids.js'
import { FUZZY_WEIGHT, PREFIX_WEIGHT, widenAsPostgres } from './widen.js'

/**
 * An inverted index in typed arrays: one `Postings` a term, documents in numbered slots with their
 * field lengths, type and scope. A removed document's slot is marked dead: a term's postings drop
 * dead slots when a search next reads them (so document frequencies count live documents), and
 * `compact` renumbers the slots once dead ones are a tenth of the index. A search scores term at a time
 * into one reused accumulator: a few nanoseconds a posting, however common the word.
 */
export class FlatIndex {
  /**
   * Postings written in this process, by term: a term the snapshot (`base`) lacks, whole; a term it
   * holds, only what was appended since (slots past the snapshot's), merged with the snapshot's
   * postings when the term is read.
   */
  private readonly own = new Map<string, Postings>()
  private base: PostingsBlocks | undefined
  /** The snapshot's terms decoded so far (with what was appended since), bounded by bytes. */
  private readonly decoded: PostingsCache
  ids = new SlotIds()
  alive: Uint8Array = new Uint8Array(0)
  lenText: Uint32Array = new Uint32Array(0)
  lenTitle: Uint16Array = new Uint16Array(0)
  lenTags: Uint16Array = new Uint16Array(0)
  typeOf: Uint8Array = new Uint8Array(0)
  scopeOf: Uint32Array = new Uint32Array(0)
  readonly types: string[] = []
  readonly scopes: string[] = []
  private readonly typeCode = new Map<string, number>()
  private readonly scopeCode = new Map<string, number>()
  live = 0
  dead = 0
  /** Removals so far: postings purged at an older count may name dead slots. */
  removals = 0
  sumText = 0
  sumTitle = 0
  sumTags = 0

  /** Moves when the snapshot's postings are replaced (`rebase`): blocks read by `prepare` before it are not the index's. */
  generation = 0

  /** The terms for prefix and typo matching. */
  private readonly dictionary = new Dictionary()

  private acc = new Float64Array(0)
  private touched = new Int32Array(0)

  /** The last query's terms: a search reads their blocks (`prepare`), then scores them (`expand`). */
  private readonly queryTerms: (text: string) => readonly string[]

  constructor(
    private readonly analyzer: Analyzer,
    private readonly scoring: Scoring,
    keepBytes?: number,
  ) {
    this.queryTerms = lastQueryTerms(analyzer)
    this.decoded = new PostingsCache(keepBytes)
  }

  get slots(): number {
    return this.ids.length
  }

  code(table: string[], codes: Map<string, number>, value: string): number {
    let c = codes.get(value)
    if (c === undefined) codes.set(value, (c = table.push(value) - 1))
    return c
  }

  /** A slot for a document whose terms follow (`post`); the caller has removed any earlier version. */
  addSlot(id: string, lengths: [number, number, number], type: string, scope: string): number {
    const slot = this.ids.length
    if (slot >= this.alive.length) this.growSlots(Math.max(64, slot * 2))
    this.ids.push(id)
    this.alive[slot] = 1
    this.lenText[slot] = lengths[0]
    this.lenTitle[slot] = Math.min(lengths[1], 0xffff)
    this.lenTags[slot] = Math.min(lengths[2], 0xffff)
    this.typeOf[slot] = this.code(this.types, this.typeCode, type)
    this.scopeOf[slot] = this.code(this.scopes, this.scopeCode, scope)
    this.live++
    this.sumText += lengths[0]
    this.sumTitle += lengths[1]
    this.sumTags += lengths[2]
    return slot
  }

  /** Append a posting of `term` for `slot`, the highest slot so far (a snapshot's term is not decoded for it). */
  post(term: string, slot: number, tf: number, titleTf: number, tagsTf: number): void {
    let p = this.own.get(term)
    if (!p) {
      p = {
        docs: new Int32Array(4),
        tf: new Uint8Array(4),
        fields: new Uint8Array(4),
        n: 0,
        titleN: 0,
        tagsN: 0,
        purged: this.removals,
      }
      this.own.set(term, p)
      if (!this.base?.has(term)) this.dictionary.add(term)
    } else if (p.n === p.docs.length) {
      const size = p.n * 2
      p.docs = grow(p.docs, new Int32Array(size))
      p.tf = grow(p.tf, new Uint8Array(size))
      p.fields = grow(p.fields, new Uint8Array(size))
    }
    p.docs[p.n] = slot
    p.tf[p.n] = Math.min(tf, 255)
    p.fields[p.n] = Math.min(titleTf, 15) | (Math.min(tagsTf, 15) << 4)
    p.n++
    if (titleTf) p.titleN++
    if (tagsTf) p.tagsN++
    if (this.base) this.decoded.delete(term)
  }

  /** Take a snapshot's documents, into an empty index: nothing is copied but the live flags. */
  restore(slots: MappedSlots): void {
    const n = slots.ids.size
    this.ids = new SlotIds(slots.ids)
    this.alive = new Uint8Array(n).fill(1)
    this.lenText = slots.lenText
    this.lenTitle = slots.lenTitle
    this.lenTags = slots.lenTags
    this.typeOf = slots.typeOf
    this.scopeOf = slots.scopeOf
    for (const type of slots.types) this.code(this.types, this.typeCode, type)
    for (const scope of slots.scopes) this.code(this.scopes, this.scopeCode, scope)
    this.live = n
    ;[this.sumText, this.sumTitle, this.sumTags] = slots.sums
  }

  /** Take a snapshot's encoded postings (documents restored first): a term decodes on first need, its block read before (`prepare`). */
  setBase(base: PostingsBlocks): void {
    this.base = base
    this.dictionary.use(base.terms)
  }

  /** A term's postings, a snapshot's decoded on need (its block read first: `prepare`); undefined when the term is not indexed. */
  postings(term: string): Postings | undefined {
    const t = this.base ? this.base.indexOf(term) : -1
    if (t < 0) return this.own.get(term)
    let p = this.decoded.get(term)
    if (!p) this.decoded.set(term, (p = this.decodeTerm(t, term)))
    return p
  }

  /** The snapshot's term `t` decoded, with what this process appended to it. */
  private decodeTerm(t: number, term: string): Postings {
    return this.withOwn(this.base!.decode(t, this.slots, this.removals), term)
  }

  /** A snapshot's postings `p` of `term`, with what this process appended to the term. */
  private withOwn(p: Postings, term: string): Postings {
    const added = this.own.get(term)
    if (!added?.n) return p
    const n = p.n + added.n
    const docs = new Int32Array(n)
    const tf = new Uint8Array(n)
    const fields = new Uint8Array(n)
    docs.set(p.docs.subarray(0, p.n))
    docs.set(added.docs.subarray(0, added.n), p.n)
    tf.set(p.tf.subarray(0, p.n))
    tf.set(added.tf.subarray(0, added.n), p.n)
    fields.set(p.fields.subarray(0, p.n))
    fields.set(added.fields.subarray(0, added.n), p.n)
    let { titleN, tagsN } = p
    for (let i = 0; i < added.n; i++) {
      const f = added.fields[i]!
      if (f & 15) titleN++
      if (f >> 4) tagsN++
    }
    // What was appended may name slots dead since: purged at the next search, as the snapshot's.
    return { docs, tf, fields, n, titleN, tagsN, purged: this.removals ? -1 : 0 }
  }

  /** Read the snapshot's postings blocks in order while they fit what is kept (`PostingsBlocks.prefetch`). */
  prefetch(): Promise<void> {
    return this.base?.prefetch() ?? Promise.resolve()
  }

  /** Read the snapshot's postings blocks a search for `text` may decode (`wordsToRead`). */
  async prepare(text: string): Promise<void> {
    const base = this.base
    if (!base) return
    const known = (term: string) => this.own.has(term) || base.has(term)
    const words = wordsToRead(this.queryTerms(text), this.analyzer, this.scoring, known, this.dictionary)
    await base.load(words)
  }

  /**
   * Every term with postings, in sorted order, and its postings (read, not to be kept: a snapshot's
   * term is decoded for the call unless it is decoded already), for writing a snapshot. The
   * snapshot's blocks are read for the pass alone (`decodePassing`): the blocks and postings searches
   * keep stay as they are. `visit` may answer a promise (a block written), awaited before the next term.
   * Searches may run at each await (never a write: the caller holds writes off until the pass ends).
   */
  async eachPostings(visit: (term: string, p: Postings) => void | Promise<void>): Promise<void> {
    const base = this.base
    const own = [...this.own.keys()].filter((term) => !base?.has(term)).sort()
    let o = 0
    const each = async (term: string, p: Postings) => {
      const wait = visit(term, p)
      if (wait) await wait
    }
    try {
      for (let t = 0; base && t < base.terms.size; t++) {
        const term = base.terms.get(t)
        for (; o < own.length && own[o]! < term; o++) await each(own[o]!, this.own.get(own[o]!)!)
        const kept = this.decoded.peek(term)
        await each(term, kept ?? this.withOwn(await base.decodePassing(t, this.slots, this.removals), term))
      }
      for (; o < own.length; o++) await each(own[o]!, this.own.get(own[o]!)!)
    } finally {
      base?.endPass()
    }
  }

  /**
   * The snapshot just written of this index takes the place of the one it was restored from: `base`,
   * the written build's postings, holds every posting this process appended (dropped here), and a
   * decoded term stays decoded (its postings are the same, slot for slot). Only for a snapshot of an
   * index with no dead slot (slots kept their numbers) and no change since; a search between
   * `prepare` and `search` sees `generation` move and prepares again.
   */
  rebase(base: PostingsBlocks): void {
    this.base = base
    this.own.clear()
    this.dictionary.use(base.terms)
    this.generation++
  }

  /** Every term's postings decoded and held, the snapshot's blocks all read: before a compaction, which renumbers them all. */
  private async allPostings(): Promise<Map<string, Postings>> {
    const base = this.base
    if (base) {
      await base.loadAll()
      for (let t = 0; t < base.terms.size; t++) {
        const term = base.terms.get(t)
        this.own.set(term, this.decoded.get(term) ?? this.decodeTerm(t, term))
      }
      this.base = undefined
      this.decoded.clear()
    }
    return this.own
  }

  /** Index a document (replacing any earlier version of its id). */
  add(doc: RetrievalDoc): void {
    this.remove(doc.id)
    const { tokenize } = this.analyzer
    const tags = doc.tags.join(' ')
    const text = `${doc.title}\n${tags}\n${doc.body}`
    const textTokens = tokenize(text)
    const titleTokens = tokenize(doc.title)
    const tagsTokens = tokenize(tags)
    const titleTf = this.counts(titleTokens)
    const tagsTf = this.counts(tagsTokens)
    const tf = this.counts(textTokens)
    // A field's length: its distinct words as cut, stop words included (MiniSearch's measure), or
    // its terms as posted (a tsvector's length: stop words out, 255 at most a term).
    const lengths: [number, number, number] =
      this.scoring.ranking === 'postgres'
        ? [terms(tf), terms(titleTf), terms(tagsTf)]
        : [new Set(textTokens).size, new Set(titleTokens).size, new Set(tagsTokens).size]
    const slot = this.addSlot(doc.id, lengths, doc.type, doc.scope)
    for (const [term, n] of tf) this.post(term, slot, n, titleTf.get(term) ?? 0, tagsTf.get(term) ?? 0)
  }

  private counts(tokens: string[]): Map<string, number> {
    const out = new Map<string, number>()
    for (const token of tokens) {
      const term = token && this.analyzer.processTerm(token)
      if (term) out.set(term, (out.get(term) ?? 0) + 1)
    }
    return out
  }

  /** Mark a document's slot dead; false when the id is not indexed. */
  remove(id: string): boolean {
    const slot = this.ids.slotOf(id)
    if (slot === undefined) return false
    this.ids.forget(id)
    this.alive[slot] = 0
    this.live--
    this.dead++
    this.removals++
    this.sumText -= this.lenText[slot]!
    this.sumTitle -= this.lenTitle[slot]!
    this.sumTags -= this.lenTags[slot]!
    return true
  }

  /** Whether dead slots are worth dropping: 20 or more, and a tenth of the slots. */
  get dirty(): boolean {
    return this.dead >= 20 && this.dead >= this.slots / 10
  }

  /** Drop dead slots and their postings; live slots keep their order. */
  async compact(): Promise<void> {
    const all = await this.allPostings() // decoded before the slots are renumbered: a snapshot's postings name the old slots
    const map = new Int32Array(this.slots).fill(-1)
    let next = 0
    for (let s = 0; s < this.slots; s++) if (this.alive[s]) map[s] = next++
    const ids: string[] = []
    for (let s = 0; s < this.slots; s++) {
      const to = map[s]!
      if (to < 0) continue
      ids.push(this.ids.get(s))
      this.alive[to] = 1
      this.lenText[to] = this.lenText[s]!
      this.lenTitle[to] = this.lenTitle[s]!
      this.lenTags[to] = this.lenTags[s]!
      this.typeOf[to] = this.typeOf[s]!
      this.scopeOf[to] = this.scopeOf[s]!
    }
    this.alive.fill(0, next)
    this.ids.replace(ids)
    this.dead = 0
    for (const [term, p] of all) if (!this.purge(p, map)) all.delete(term)
    this.dictionary.reset([...all.keys()])
  }

  /**
   * Drop a term's postings of dead slots (renumbered through `map` when given), so its document
   * frequencies count live documents only; answers the postings left.
   */
  private purge(p: Postings, map?: Int32Array): number {
    const { alive } = this
    let w = 0
    p.titleN = p.tagsN = 0
    for (let i = 0; i < p.n; i++) {
      const d = p.docs[i]!
      const to = map ? map[d]! : alive[d] ? d : -1
      if (to < 0) continue
      p.docs[w] = to
      p.tf[w] = p.tf[i]!
      const f = (p.fields[w] = p.fields[i]!)
      if (f & 15) p.titleN++
      if (f >> 4) p.tagsN++
      w++
    }
    p.n = w
    p.purged = this.removals
    return w
  }

  private growSlots(size: number) {
    this.alive = grow(this.alive, new Uint8Array(size))
    this.lenText = grow(this.lenText, new Uint32Array(size))
    this.lenTitle = grow(this.lenTitle, new Uint16Array(size))
    this.lenTags = grow(this.lenTags, new Uint16Array(size))
    this.typeOf = grow(this.typeOf, new Uint8Array(size))
    this.scopeOf = grow(this.scopeOf, new Uint32Array(size))
  }

  /**
   * The postings a query scores, each with its weight: a known term as written (counted once per
   * occurrence in the query, as BM25 does), an unknown one widened to the indexed words it begins
   * and those a small edit away.
   */
  expand(text: string): Array<[Postings, number]> {
    const { prefix, fuzzy } = this.analyzer
    const weights = new Map<string, number>()
    // The Postgres ranking scores a query's distinct terms, each at its best weight.
    const once = this.scoring.ranking === 'postgres'
    const add = (term: string, weight: number) =>
      weights.set(term, once ? Math.max(weights.get(term) ?? 0, weight) : (weights.get(term) ?? 0) + weight)
    // Each term's postings read once a search: a snapshot's term may be dropped from the decoded ones
    // as the next is decoded, and decoding a common term again costs.
    const seen = new Map<string, Postings | undefined>()
    const read = (term: string) => {
      if (!seen.has(term)) seen.set(term, this.postings(term))
      return seen.get(term)
    }
    const docsOf = (term: string): number => {
      const p = read(term)
      if (p && p.purged !== this.removals) this.purge(p)
      return p?.n ?? 0
    }
    for (const term of this.queryTerms(text)) {
      if (this.has(term)) {
        add(term, 1)
        continue
      }
      if (once) {
        widenAsPostgres(term, this.dictionary, { prefix: prefix(term), distance: fuzzy(term) }, docsOf, add)
        continue
      }
      const prefixed = new Set(prefix(term) ? this.dictionary.prefixed(term) : [])
      for (const other of prefixed)
        add(other, (PREFIX_WEIGHT * other.length) / (other.length + 0.3 * (other.length - term.length)))
      const distance = fuzzy(term)
      if (distance)
        for (const [other, d] of this.dictionary.near(term, distance))
          if (!prefixed.has(other)) add(other, (FUZZY_WEIGHT * other.length) / (other.length + d))
    }
    const out: Array<[Postings, number]> = []
    for (const [term, weight] of weights) if (docsOf(term)) out.push([read(term)!, weight])
    return out
  }

  /** Whether `term` has postings (none decoded for the answer). */
  private has(term: string): boolean {
    return this.own.has(term) || (this.base?.has(term) ?? false)
  }

  /**
   * The best `limit` live documents for `text` that `wanted` accepts (by slot), best first, ties by
   * id. Ranked `minisearch`: BM25 over the whole text plus the title and tag boosts, each field with
   * its own document frequency and average length (MiniSearch's scores for the same documents).
   * Ranked `postgres`: one BM25 of field-weighted term frequencies (the Postgres retriever's scores
   * for the same terms).
   */
  search(text: string, limit: number, wanted?: (slot: number) => boolean): RetrievalHit[] {
    const query = this.expand(text)
    if (!query.length || !this.live || limit <= 0) return []
    if (this.acc.length < this.slots) {
      this.acc = new Float64Array(this.alive.length)
      this.touched = new Int32Array(this.alive.length)
    }
    const { acc, touched, lenText, lenTitle, lenTags } = this
    const { k, b, ranking, title, tags } = this.scoring
    const weighted = ranking === 'postgres'
    const N = this.live
    const idf = (df: number) => Math.log(1 + (N - Math.min(df, N) + 0.5) / (Math.min(df, N) + 0.5))
    const avgText = weighted ? Math.max(this.sumText / N, 1) : this.sumText / N || 1
    const avgTitle = this.sumTitle / N || 1
    const avgTags = this.sumTags / N || 1
    const k1 = k + 1
    const kA = k * (1 - b)
    const kBText = (k * b) / avgText
    let count = 0
    for (const [p, weight] of query) {
      const wText = weight * idf(p.n) * k1
      const { docs, tf, fields } = p
      if (weighted) {
        for (let i = 0, n = p.n; i < n; i++) {
          const d = docs[i]!
          const x = fields[i]!
          const f = tf[i]! + title * (x & 15) + tags * (x >> 4)
          if (acc[d] === 0) touched[count++] = d
          acc[d] = acc[d]! + (wText * f) / (f + kA + kBText * lenText[d]!)
        }
        continue
      }
      const wTitle = p.titleN ? weight * title * idf(p.titleN) * k1 : 0
      const wTags = p.tagsN ? weight * tags * idf(p.tagsN) * k1 : 0
      for (let i = 0, n = p.n; i < n; i++) {
        const d = docs[i]!
        const f = tf[i]!
        let s = (wText * f) / (f + kA + kBText * lenText[d]!)
        const x = fields[i]!
        if (x) {
          const t = x & 15
          const g = x >> 4
          if (t) s += (wTitle * t) / (t + k * (1 - b + (b * lenTitle[d]!) / avgTitle))
          if (g) s += (wTags * g) / (g + k * (1 - b + (b * lenTags[d]!) / avgTags))
        }
        if (acc[d] === 0) touched[count++] = d
        acc[d] = acc[d]! + s
      }
    }
    // The best `limit`, kept sorted in a small array; most candidates fail the first comparison.
    const topSlots: number[] = []
    const topScores: number[] = []
    const { alive } = this
    const id = (slot: number) => this.ids.get(slot)
    for (let i = 0; i < count; i++) {
      const d = touched[i]!
      const s = acc[d]!
      acc[d] = 0
      if (topSlots.length === limit && s < topScores[limit - 1]!) continue
      if (!alive[d] || (wanted && !wanted(d))) continue
      let at = topSlots.length
      while (at > 0 && (s > topScores[at - 1]! || (s === topScores[at - 1]! && id(d) < id(topSlots[at - 1]!)))) at--
      if (at >= limit) continue
      topSlots.splice(at, 0, d)
      topScores.splice(at, 0, s)
      if (topSlots.length > limit) topSlots.pop(), topScores.pop()
    }
    return topSlots.map((d, i) => ({ id: id(d), score: topScores[i]! }))
  }

  /** Bytes the index holds in typed arrays (postings decoded or not, slots, accumulator), strings and maps not counted. */
  bytes(): number {
    let total =
      this.alive.byteLength +
      this.lenText.byteLength +
      this.lenTitle.byteLength +
      this.lenTags.byteLength +
      this.typeOf.byteLength +
      this.scopeOf.byteLength
    total += this.acc.byteLength + this.touched.byteLength
    for (const p of this.own.values()) total += p.docs.byteLength + p.tf.byteLength + p.fields.byteLength
    total += this.decoded.bytes
    if (this.base) total += this.base.length
    return total
  }

  typeCodeOf(type: string): number | undefined {
    return this.typeCode.get(type)
  }

  scopeCodeOf(scope: string): number | undefined {
    return this.scopeCode.get(scope)
  }
}

/** A field's length in terms as posted: each term's count, capped as its postings cap it. */
function terms(counts: Map<string, number>): number {
  let n = 0
  for (const c of counts.values()) n += Math.min(c, 255)
  return n
}

function grow<T extends Int32Array | Uint32Array | Uint16Array | Uint8Array>(from: T, to: T): T {
  to.set(from.subarray(0, Math.min(from.length, to.length)) as never)
  return to
}
