import type { Postings } from './postings.js'

/** Bytes of decoded snapshot postings a process keeps (a common term's postings at 100k facts are a few hundred KB). */
export const KEPT_POSTINGS_BYTES = 4 << 20

const bytesOf = (p: Postings) => p.docs.byteLength + p.tf.byteLength + p.fields.byteLength

/**
 * Decoded postings of a snapshot's terms, bounded by bytes: the least recently read are dropped once
 * the rest pass `limit` (the one just kept stays, however large), and decoded again from their block
 * when a search needs them. A caller holding postings keeps them usable after they are dropped.
 */
export class PostingsCache {
  private readonly kept = new Map<string, Postings>()
  private size = 0

  constructor(private readonly limit = KEPT_POSTINGS_BYTES) {}

  /** `term`'s postings, now the most recently read; undefined when they are not kept. */
  get(term: string): Postings | undefined {
    const p = this.kept.get(term)
    if (p) {
      this.kept.delete(term)
      this.kept.set(term, p)
    }
    return p
  }

  /** `term`'s postings when kept, their place among the recently read unchanged (a pass over every term). */
  peek(term: string): Postings | undefined {
    return this.kept.get(term)
  }

  /** Keep `p` as `term`'s postings, dropping the least recently read beyond the limit. */
  set(term: string, p: Postings): void {
    this.delete(term)
    this.kept.set(term, p)
    this.size += bytesOf(p)
    for (const [other, q] of this.kept) {
      if (this.size <= this.limit || other === term) break
      this.kept.delete(other)
      this.size -= bytesOf(q)
    }
  }

  /** Forget `term`'s postings (a write appended to the term: they are decoded again with it). */
  delete(term: string): void {
    const p = this.kept.get(term)
    if (!p) return
    this.kept.delete(term)
    this.size -= bytesOf(p)
  }

  clear(): void {
    this.kept.clear()
    this.size = 0
  }

  /** Bytes of the postings kept. */
  get bytes(): number {
    return this.size
  }
}
