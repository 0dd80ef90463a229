import { lowerBound } from '../sorted.js'
import { CorruptSnapshot } from './corrupt-snapshot.js'

/** Terms in ascending order (by code unit), read one at a time. */
export interface SortedTerms {
  readonly size: number
  /** Term `i`, 0 ≤ i < size. */
  get(i: number): string
  /** The first index whose term is not below `word`: where `word` is or would go. */
  lowerBound(word: string): number
  /** Every term, in order (`CorruptSnapshot` when a snapshot's are not). */
  all(): string[]
}

/** Unsigned 32-bit numbers read one at a time (a snapshot's offset tables, read from its base64 where needed). */
export interface Words {
  readonly length: number
  get(i: number): number
  /** Every number, decoded in one pass. */
  toArray(): Uint32Array
}

/** Sorted terms held in an array (a fresh index, or after a compaction). */
export function sortedArray(terms: string[]): SortedTerms {
  return {
    size: terms.length,
    get: (i) => terms[i]!,
    lowerBound: (word) => lowerBound(terms, word),
    all: () => terms,
  }
}

/**
 * Strings kept in one text, string `i` from code unit `at[i]` to `at[i + 1]` (a snapshot's ids and
 * terms): opening them costs nothing that grows with their number, and each is sliced when read.
 * Offsets that run backwards or past the text throw `CorruptSnapshot` where they are read.
 */
export class PackedStrings {
  readonly size: number
  constructor(
    readonly text: string,
    readonly at: Words,
  ) {
    this.size = at.length - 1
  }

  get(i: number): string {
    const from = this.at.get(i)
    const to = this.at.get(i + 1)
    if (!(from <= to && to <= this.text.length))
      throw new CorruptSnapshot(`string ${i} of a snapshot part is out of range`)
    return this.text.slice(from, to)
  }

  /** Every string, in order (the offsets decoded in one pass). */
  all(): string[] {
    const at = this.at.toArray()
    const { text } = this
    const out: string[] = new Array(this.size)
    for (let i = 0; i < this.size; i++) {
      if (!(at[i]! <= at[i + 1]! && at[i + 1]! <= text.length)) throw new CorruptSnapshot(`string ${i} is out of range`)
      out[i] = text.slice(at[i], at[i + 1])
    }
    return out
  }
}

/**
 * A snapshot's sorted terms, packed: a lookup is a binary search slicing one term a step, and checks
 * the terms it meets are in order (each lies strictly between the bounds found so far); a lookup that
 * finds them out of order throws `CorruptSnapshot`, the retriever drops the index and the kernel re-indexes.
 */
export class PackedTerms extends PackedStrings implements SortedTerms {
  lowerBound(word: string): number {
    let lo = 0
    let hi = this.size
    let below: string | undefined // the term at lo - 1, once met
    let above: string | undefined // the term at hi, once met
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const term = this.get(mid)
      if ((below !== undefined && !(below < term)) || (above !== undefined && !(term < above)))
        throw new CorruptSnapshot('the snapshot terms are out of order')
      if (term < word) (lo = mid + 1), (below = term)
      else (hi = mid), (above = term)
    }
    return lo
  }

  override all(): string[] {
    const out = super.all()
    for (let i = 1; i < out.length; i++)
      if (!(out[i - 1]! < out[i]!)) throw new CorruptSnapshot('the snapshot terms are out of order')
    return out
  }
}
