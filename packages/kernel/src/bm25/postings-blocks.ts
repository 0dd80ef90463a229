import { CorruptSnapshot } from './corrupt-snapshot.js'
import { decodePostings, type EncodedPostings, type Postings } from './postings.js'
import { Base64Words } from './base64.js'
import type { SortedTerms, Words } from './packed-strings.js'

/**
 * Bytes of postings a block holds before the next term starts a new one (a term longer than this is a
 * block alone). A hook's process reads the blocks of its prompt's words, most for one rare term
 * each: at 16 KB rather than 32 it read half the bytes, and 4 ms less CPU at 10k facts.
 */
export const BLOCK_BYTES = 1 << 14

/** Bytes of a block's offsets for `k` terms: where each term's gaps start (k + 1 words), then its postings (k + 1). */
export const blockHeadBytes = (k: number) => 8 * (k + 1)

/**
 * Characters of blocks kept read (about 96 blocks): a block beyond it, least recently asked for
 * first, is dropped when another is read, and read again from the store when a search needs it. The
 * encoded postings of a large index are tens of megabytes: a process keeps what its searches use.
 */
export const KEPT_BLOCK_CHARS = 1 << 21

const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4

/**
 * A snapshot's postings in blocks of consecutive terms, each block a part of its own: block `b` holds
 * terms `blockAt[b]` to `blockAt[b + 1]`, in base64: its offsets (`blockHeadBytes`), its slot gaps
 * (varints), then their term frequencies, then their title and tag frequencies. A process reads the
 * blocks its queries need (`load`), so a new process pays for the terms it searches, not for the
 * whole index.
 */
export class PostingsBlocks {
  private readonly text: Array<EncodedPostings | undefined>
  private readonly size: number
  private readonly looked = new Map<string, number>()
  private readonly loading: Array<Promise<void> | undefined>
  /** The blocks read, least recently asked for first, and their characters in all. */
  private readonly kept = new Set<number>()
  private keptChars = 0
  /** The block a pass over every term read last, not kept (`decodePassing`). */
  private passing: { b: number; block: EncodedPostings } | undefined

  constructor(
    readonly terms: SortedTerms,
    private readonly blockAt: readonly number[],
    /** A block's stored text; undefined when it is gone. */
    private readonly read: (block: number) => Promise<string | undefined>,
    /** Characters of blocks kept read (`KEPT_BLOCK_CHARS`). */
    private readonly keepChars = KEPT_BLOCK_CHARS,
  ) {
    this.text = new Array(blockAt.length)
    this.loading = new Array(blockAt.length)
    this.size = terms.size
  }

  /** The block of term `t`. */
  private blockOf(t: number): number {
    const { blockAt } = this
    let lo = 0
    let hi = blockAt.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (blockAt[mid]! <= t) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  /** Whether the snapshot holds `term`. */
  has(term: string): boolean {
    return this.indexOf(term) >= 0
  }

  /** The number of `term` in the snapshot, -1 when it lacks it (remembered: a search looks a word up before and as it decodes it). */
  indexOf(term: string): number {
    let t = this.looked.get(term)
    if (t === undefined) {
      if (this.looked.size >= 4096) this.looked.clear()
      t = this.terms.lowerBound(term)
      if (!(t < this.size && this.terms.get(t) === term)) t = -1
      this.looked.set(term, t)
    }
    return t
  }

  /**
   * Read the blocks of `words` not read yet (words the snapshot lacks are passed over), first dropping
   * blocks beyond `keepChars` that none of them needs; `CorruptSnapshot` when one is gone or does not fit.
   * The blocks of `words` stay read until the next `load`.
   */
  async load(words: Iterable<string>): Promise<void> {
    const wanted = new Set<number>()
    for (const word of words) {
      const t = this.indexOf(word)
      if (t >= 0) wanted.add(this.blockOf(t))
    }
    await this.loadBlocks(wanted)
  }

  /**
   * Read blocks from the first while the blocks kept stay within `keepChars` (a server's warm-up: at
   * 10k facts every block fits, and a first search reads none). A search's `load` may drop them later,
   * as it drops any block kept.
   */
  async prefetch(): Promise<void> {
    for (let b = 0; b < this.blockAt.length && this.keptChars < this.keepChars; b++) await this.loadBlock(b)
  }

  /** Read every block, none dropped (before a compaction, which decodes every term). */
  async loadAll(): Promise<void> {
    await Promise.all(this.blockAt.map((_, b) => this.loadBlock(b)))
  }

  private async loadBlocks(wanted: Set<number>): Promise<void> {
    for (const b of wanted) if (this.kept.delete(b)) this.kept.add(b) // asked for again: the most recent
    for (const b of this.kept) {
      if (this.keptChars <= this.keepChars) break
      if (!wanted.has(b)) this.drop(b)
    }
    await Promise.all([...wanted].map((b) => this.loadBlock(b)))
  }

  private drop(b: number): void {
    this.keptChars -= this.text[b]?.postings.length ?? 0
    this.kept.delete(b)
    this.text[b] = undefined
    this.loading[b] = undefined
  }

  /** Block `b` read, once however many callers ask. */
  private loadBlock(b: number): Promise<void> {
    return (this.loading[b] ??= this.readBlock(b).catch((error) => {
      this.loading[b] = undefined // read again when asked again
      throw error
    }))
  }

  private async readBlock(b: number): Promise<void> {
    const block = await this.fetch(b)
    if (this.text[b]) return
    this.kept.add(b)
    this.keptChars += block.postings.length
    this.text[b] = block
  }

  /** Block `b` read from the store and checked against its offsets; `CorruptSnapshot` when it is gone or does not fit. */
  private async fetch(b: number): Promise<EncodedPostings> {
    const from = this.blockAt[b]!
    const to = b + 1 < this.blockAt.length ? this.blockAt[b + 1]! : this.size
    const k = to - from
    const head = blockHeadBytes(k)
    let text: string | undefined
    try {
      text = await this.read(b)
    } catch (error) {
      throw new CorruptSnapshot(`postings block ${b} of the snapshot is unreadable: ${(error as Error).message}`)
    }
    if (text === undefined) throw new CorruptSnapshot(`postings block ${b} of the snapshot is gone`)
    const misfit = () => new CorruptSnapshot(`postings block ${b} of the snapshot does not fit its table`)
    if (text.length < base64Length(head)) throw misfit()
    const gapAt = ordered(new Base64Words(text, 0, k + 1))
    const postAt = ordered(new Base64Words(text, k + 1, k + 1))
    const tfAt = gapAt.get(k)
    const count = postAt.get(k)
    if (gapAt.get(0) !== head || postAt.get(0) !== 0 || tfAt < head || text.length !== base64Length(tfAt + 2 * count))
      throw misfit()
    return {
      terms: shiftedTerms(this.terms, from, to),
      gapAt,
      postAt,
      postings: text,
      tfAt,
      fieldsAt: tfAt + count,
    }
  }

  /**
   * Term `t`'s postings for a pass over every term in order (a snapshot being written): a block not
   * kept is read for the pass alone (the last one held until the pass moves on), so the pass neither
   * drops the blocks searches keep nor waits for their reads.
   */
  async decodePassing(t: number, slots: number, removals: number): Promise<Postings> {
    const b = this.blockOf(t)
    let block = this.text[b]
    if (!block) {
      if (this.passing?.b !== b) this.passing = { b, block: await this.fetch(b) }
      block = this.passing.block
    }
    return decodePostings(block, t - this.blockAt[b]!, slots, removals)
  }

  /** The pass is over: its last block is let go. */
  endPass(): void {
    this.passing = undefined
  }

  /** Term `t`'s postings (its block read first: `load`); `CorruptSnapshot` when they do not fit the snapshot's `slots` documents. */
  decode(t: number, slots: number, removals: number): Postings {
    const b = this.blockOf(t)
    const block = this.text[b]
    if (!block) throw new CorruptSnapshot(`postings block ${b} was decoded before it was read`)
    return decodePostings(block, t - this.blockAt[b]!, slots, removals)
  }

  /** Characters of the blocks read and kept. */
  get length(): number {
    let n = 0
    for (const block of this.text) n += block?.postings.length ?? 0
    return n
  }
}

/** Terms `from` to `to` of `terms`, numbered from 0. */
function shiftedTerms(terms: SortedTerms, from: number, to: number): SortedTerms {
  const size = to - from
  return {
    size,
    get: (i) => terms.get(from + i),
    lowerBound: (word) => Math.min(size, Math.max(0, terms.lowerBound(word) - from)),
    all: () => terms.all().slice(from, to),
  }
}

/** A block's offsets, each read checked to be no less than the one before it. */
function ordered(words: Words): Words {
  return {
    length: words.length,
    get: (i) => {
      const word = words.get(i)
      if (i > 0 && word < words.get(i - 1)) throw new CorruptSnapshot('the postings table is out of order')
      return word
    },
    toArray: () => words.toArray(),
  }
}
