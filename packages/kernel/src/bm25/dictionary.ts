import { boundedDistance } from '../edit-distance.js'
import { sortedArray, type SortedTerms } from './packed-strings.js'

/**
 * The indexed terms, for the query words the index lacks: a sorted run plus the terms added since
 * (merged in when many) for prefixes, and terms bucketed by length with a letter mask for typos. A
 * term within edit distance d of a word differs from it in at most 2·d mask bits (an edit adds one
 * letter and removes one), so most of a bucket is passed over without computing a distance.
 */
export class Dictionary {
  private sorted: SortedTerms = sortedArray([])
  private recent: string[] = []
  /**
   * Built on the first typo lookup: a process that never meets an unknown word never pays for it.
   * `masks[i]` is `terms[i]`'s letter mask, for the first `masks.length` terms (the rest on the next lookup).
   */
  private byLength: Array<{ terms: string[]; masks: number[] }> | undefined

  /** Answers for words the index lacks (names and typos recur from query to query), until a term is added. */
  private readonly answers = new Map<string, string[] | Array<[string, number]>>()

  /** A term new to the index. */
  add(term: string): void {
    this.answers.clear()
    this.recent.push(term)
    if (this.byLength) this.bucket(this.byLength, term)
    if (this.recent.length > 2048 && this.recent.length > this.sorted.size / 8) this.merge()
  }

  /** Replace the whole dictionary (after a compaction). */
  reset(terms: string[]): void {
    let ordered = true
    for (let i = 1; i < terms.length && ordered; i++) ordered = terms[i - 1]! < terms[i]!
    this.use(sortedArray(ordered ? terms : [...terms].sort()))
  }

  /** Replace the whole dictionary by a snapshot's sorted terms, read where a lookup needs them (its lookups check their order). */
  use(sorted: SortedTerms): void {
    this.sorted = sorted
    this.answers.clear()
    this.recent = []
    this.byLength = undefined
  }

  /** The terms that begin with `word` and are longer. */
  prefixed(word: string): string[] {
    return this.remember(`p${word}`, () => this.scanPrefixed(word))
  }

  /** The terms within `distance` edits of `word`, each with its distance. */
  near(word: string, distance: number): Array<[string, number]> {
    return this.remember(`${distance}${word}`, () => this.scanNear(word, distance))
  }

  private remember<T extends string[] | Array<[string, number]>>(key: string, find: () => T): T {
    let found = this.answers.get(key) as T | undefined
    if (!found) {
      if (this.answers.size >= 4096) this.answers.clear()
      this.answers.set(key, (found = find()))
    }
    return found
  }

  private scanPrefixed(word: string): string[] {
    const out: string[] = []
    const { sorted } = this
    for (let at = sorted.lowerBound(word); at < sorted.size; at++) {
      const term = sorted.get(at)
      if (!term.startsWith(word)) break
      if (term !== word) out.push(term)
    }
    for (const term of this.recent) if (term.startsWith(word) && term !== word) out.push(term)
    return out
  }

  private scanNear(word: string, distance: number): Array<[string, number]> {
    const out: Array<[string, number]> = []
    const mask = maskOf(word)
    const byLength = (this.byLength ??= this.buckets())
    for (let length = Math.max(1, word.length - distance); length <= word.length + distance; length++) {
      const bucket = byLength[length]
      if (!bucket) continue
      const { terms, masks } = bucket
      // A bucket's masks are computed the first time a word of a near length looks in it.
      while (masks.length < terms.length) masks.push(maskOf(terms[masks.length]!))
      for (let i = 0; i < terms.length; i++) {
        if (bits(masks[i]! ^ mask) > 2 * distance) continue
        const d = boundedDistance(word, terms[i]!, distance)
        if (d <= distance) out.push([terms[i]!, d])
      }
    }
    return out
  }

  private buckets(): Array<{ terms: string[]; masks: number[] }> {
    const byLength: Array<{ terms: string[]; masks: number[] }> = []
    for (const term of this.materialize()) this.bucket(byLength, term)
    for (const term of this.recent) this.bucket(byLength, term)
    return byLength
  }

  private bucket(byLength: Array<{ terms: string[]; masks: number[] }>, term: string) {
    ;(byLength[term.length] ??= { terms: [], masks: [] }).terms.push(term)
  }

  /** The sorted terms as an array, from here on (a snapshot's are sliced once, when a reader visits them all). */
  private materialize(): string[] {
    const all = this.sorted.all()
    this.sorted = sortedArray(all)
    return all
  }

  private merge() {
    const add = this.recent.sort()
    const sorted = this.materialize()
    const out: string[] = new Array(sorted.length + add.length)
    let i = 0
    let j = 0
    let w = 0
    while (i < sorted.length || j < add.length)
      out[w++] = j >= add.length || (i < sorted.length && sorted[i]! < add[j]!) ? sorted[i++]! : add[j++]!
    this.sorted = sortedArray(out)
    this.recent = []
  }
}

/** One of 32 bits a character: any fixed mapping keeps the 2·d bound. */
function maskOf(term: string): number {
  let mask = 0
  for (let i = 0; i < term.length; i++) mask |= 1 << (term.charCodeAt(i) & 31)
  return mask
}

function bits(v: number): number {
  v -= (v >>> 1) & 0x55555555
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}
