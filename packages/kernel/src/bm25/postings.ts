import { base64Range } from './base64.js'
import { CorruptSnapshot } from './corrupt-snapshot.js'
import type { SortedTerms, Words } from './packed-strings.js'

/** A term's postings: document slots ascending, their term frequencies in the whole text (capped at 255), and in the title (low nibble) and tags (high nibble). */
export interface Postings {
  docs: Int32Array
  tf: Uint8Array
  fields: Uint8Array
  /** Postings in use (the arrays grow by doubling). */
  n: number
  /** Postings with a title match, and with a tag match. */
  titleN: number
  tagsN: number
  /** The index's removal count when dead slots were last dropped from these postings. */
  purged: number
}

/**
 * A snapshot's postings, still in base64: terms sorted, and for each term `t` where its slot gaps
 * (varints) start and end in the decoded bytes (`gapAt[t]` to `gapAt[t + 1]`) and where its term
 * and field frequencies start and end (`postAt[t]` to `postAt[t + 1]`, after `tfAt` and `fieldsAt`).
 * A term's postings are decoded the first time a search or a write needs them, and checked then.
 */
export interface EncodedPostings {
  terms: SortedTerms
  gapAt: Words
  postAt: Words
  postings: string
  tfAt: number
  fieldsAt: number
}

/** Term `t`'s postings in a snapshot of `slots` documents; `CorruptSnapshot` when they do not fit it. */
export function decodePostings(base: EncodedPostings, t: number, slots: number, removals: number): Postings {
  const { gapAt, postAt, postings, tfAt, fieldsAt } = base
  const term = base.terms.get(t)
  const from = postAt.get(t)
  const n = postAt.get(t + 1) - from
  const gapsFrom = gapAt.get(t)
  const gapsTo = gapAt.get(t + 1)
  if (n < 0 || gapsTo < gapsFrom || gapsTo > tfAt || from + n > fieldsAt - tfAt)
    throw new CorruptSnapshot(`the postings table of "${term}" is out of order`)
  const docs = new Int32Array(n)
  let gaps: Uint8Array
  let tf: Uint8Array
  let fields: Uint8Array
  try {
    gaps = base64Range(postings, gapsFrom, gapsTo)
    tf = base64Range(postings, tfAt + from, tfAt + from + n)
    fields = base64Range(postings, fieldsAt + from, fieldsAt + from + n)
  } catch (error) {
    throw new CorruptSnapshot(`the postings of "${term}" are unreadable: ${(error as Error).message}`)
  }
  // One pass (a new process runs it cold, so each pass over the postings costs): slots, then title and tag counts.
  let at = 0
  let last = -1
  let titleN = 0
  let tagsN = 0
  for (let i = 0; i < n; i++) {
    let b = gaps[at++]!
    if (b < 0x80) docs[i] = last += b + 1
    else {
      let gap = b & 0x7f
      for (let shift = 7; b >= 0x80; shift += 7) (b = gaps[at++]!), (gap += (b & 0x7f) * 2 ** shift)
      docs[i] = last = last + 1 + gap
    }
    const f = fields[i]!
    if (f) {
      if (f & 15) titleN++
      if (f >> 4) tagsN++
    }
  }
  if (n && (last >= slots || at !== gaps.length))
    throw new CorruptSnapshot(`the postings of "${term}" do not fit the snapshot's ${slots} documents`)
  // Slots may have died since the snapshot: purge at the next search.
  return { docs, tf, fields, n, titleN, tagsN, purged: removals ? -1 : 0 }
}
