import type { SnapshotStore } from '../retrieval.js'
import { fromBase64, toBase64 } from './base64.js'
import type { EncodedPostings, FlatIndex } from './flat-index.js'

/**
 * The snapshot: a small `head` naming a build, and the build's four parts: `docs` (JSON: ids,
 * types, scopes), `terms` (the dictionary, sorted, one term a line), `data` (base64 of varints:
 * each live document's field lengths, type and scope; each term's posting count and gap bytes)
 * and `postings` (base64 of the slot gaps as varints, then the term frequencies, then the title
 * and tag frequencies, a byte a posting). No JSON parse of postings, and a new process decodes
 * only the base64 ranges of the postings its queries need (`EncodedPostings`). Parts are written before the head, so a head never
 * names an incomplete build; the format names the analyzer (segmented words, Porter stems).
 */
export const FORMAT = 'foundry-bm25/3'

export interface Head {
  format: string
  build: string
  revision: string
}

const part = (build: string, name: string) => `${build}/${name}`

/** The stored head when it names a build in `format` (an index of another analysis reads as none). */
export async function readHead(store: SnapshotStore, format = FORMAT): Promise<Head | undefined> {
  const text = await store.read('head')
  if (!text) return undefined
  try {
    const head = JSON.parse(text) as Head
    return head.format === format && typeof head.build === 'string' && typeof head.revision === 'string'
      ? head
      : undefined
  } catch {
    return undefined
  }
}

/** The live documents of `index` as a snapshot's parts (slots renumbered densely, in order). */
export function encode(index: FlatIndex): Parts {
  const map = new Int32Array(index.slots).fill(-1)
  const ids: string[] = []
  const out = new ByteWriter(1 << 16)
  for (let s = 0; s < index.slots; s++) if (index.alive[s]) (map[s] = ids.length), ids.push(index.ids[s]!)
  out.varint(ids.length)
  for (let s = 0; s < index.slots; s++) {
    if (map[s]! < 0) continue
    out.varint(index.lenText[s]!)
    out.varint(index.lenTitle[s]!)
    out.varint(index.lenTags[s]!)
    out.varint(index.typeOf[s]!)
    out.varint(index.scopeOf[s]!)
  }
  const terms: string[] = []
  const table = new ByteWriter(1 << 16)
  const gaps = new ByteWriter(1 << 16)
  const tf = new ByteWriter(1 << 16)
  const fields = new ByteWriter(1 << 16)
  const all = index.allPostings()
  for (const term of [...all.keys()].sort()) {
    const p = all.get(term)!
    let live = 0
    for (let i = 0; i < p.n; i++) if (map[p.docs[i]!]! >= 0) live++
    if (!live) continue
    terms.push(term)
    const before = gaps.length
    let last = -1
    for (let i = 0; i < p.n; i++) {
      const to = map[p.docs[i]!]!
      if (to < 0) continue
      gaps.varint(to - last - 1)
      last = to
      tf.byte(p.tf[i]!)
      fields.byte(p.fields[i]!)
    }
    table.varint(live)
    table.varint(gaps.length - before)
  }
  out.bytes(table.done())
  const postings = new ByteWriter(gaps.length + tf.length + fields.length)
  postings.bytes(gaps.done())
  postings.bytes(tf.done())
  postings.bytes(fields.done())
  return {
    docs: JSON.stringify({ ids, types: index.types, scopes: index.scopes }),
    terms: terms.join('\n'),
    data: toBase64(out.done()),
    postings: toBase64(postings.done()),
  }
}

/** Fill an empty index from a snapshot's parts; false when they do not fit together. */
export function decode(index: FlatIndex, parts: Parts): boolean {
  const { ids, types, scopes } = JSON.parse(parts.docs) as { ids: string[]; types: string[]; scopes: string[] }
  const terms = parts.terms ? parts.terms.split('\n') : []
  const data = new ByteReader(fromBase64(parts.data))
  if (data.varint() !== ids.length) return false
  for (const id of ids) {
    const lengths: [number, number, number] = [data.varint(), data.varint(), data.varint()]
    index.addSlot(id, lengths, types[data.varint()] ?? '', scopes[data.varint()] ?? '')
  }
  // The term table: each term's posting count and gap bytes; the postings stay in base64 until needed.
  const count = new Int32Array(terms.length)
  const gapAt = new Int32Array(terms.length + 1)
  const postAt = new Int32Array(terms.length)
  let total = 0
  for (let t = 0; t < terms.length; t++) {
    count[t] = data.varint()
    postAt[t] = total
    total += count[t]!
    gapAt[t + 1] = gapAt[t]! + data.varint()
  }
  if (data.at !== data.buffer.length) return false
  for (let t = 1; t < terms.length; t++) if (!(terms[t - 1]! < terms[t]!)) return false // looked up by binary search
  const tfAt = gapAt[terms.length]!
  if (parts.postings.length !== Math.ceil((tfAt + 2 * total) / 3) * 4) return false
  index.setBase({
    terms,
    count,
    gapAt,
    postAt,
    postings: parts.postings,
    tfAt,
    fieldsAt: tfAt + total,
  } satisfies EncodedPostings)
  return true
}

/** A build's parts, as stored. */
interface Parts {
  docs: string
  terms: string
  data: string
  postings: string
}
const PARTS = ['docs', 'terms', 'data', 'postings'] as const

export async function writeSnapshot(
  store: SnapshotStore,
  index: FlatIndex,
  revision: string,
  replaces: Head | undefined,
  format = FORMAT,
): Promise<Head> {
  const build = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  const parts = encode(index)
  await store.write(part(build, 'docs'), parts.docs)
  await store.write(part(build, 'terms'), parts.terms)
  await store.write(part(build, 'data'), parts.data)
  await store.write(part(build, 'postings'), parts.postings)
  const head: Head = { format, build, revision }
  await store.write('head', JSON.stringify(head))
  if (replaces && replaces.build !== build) await removeBuild(store, replaces)
  return head
}

/** The build `head` names, decoded into `index`; false when a part is gone or unreadable (it is only a cache). */
export async function readSnapshot(store: SnapshotStore, head: Head, index: FlatIndex): Promise<boolean> {
  try {
    const [docs, terms, data, postings] = await Promise.all(PARTS.map((name) => store.read(part(head.build, name))))
    if (docs === undefined || terms === undefined || data === undefined || postings === undefined) return false
    return decode(index, { docs, terms, data, postings })
  } catch {
    return false
  }
}

export async function removeBuild(store: SnapshotStore, head: Head): Promise<void> {
  // Another process may still read the old build, or have removed it already: best effort.
  try {
    for (const name of PARTS) await store.remove(part(head.build, name))
  } catch {
    // an orphaned cache file costs disk, not correctness
  }
}

class ByteWriter {
  private buf: Uint8Array
  private at = 0
  constructor(size: number) {
    this.buf = new Uint8Array(size)
  }
  private room(n: number) {
    if (this.at + n <= this.buf.length) return
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.at + n))
    next.set(this.buf.subarray(0, this.at))
    this.buf = next
  }
  byte(v: number) {
    this.room(1)
    this.buf[this.at++] = v
  }
  varint(v: number) {
    this.room(5)
    while (v >= 0x80) {
      this.buf[this.at++] = (v & 0x7f) | 0x80
      v >>>= 7
    }
    this.buf[this.at++] = v
  }
  bytes(v: Uint8Array) {
    this.room(v.length)
    this.buf.set(v, this.at)
    this.at += v.length
  }
  get length(): number {
    return this.at
  }
  done(): Uint8Array {
    return this.buf.subarray(0, this.at)
  }
}

class ByteReader {
  at = 0
  constructor(readonly buffer: Uint8Array) {}
  varint(): number {
    let v = 0
    let shift = 0
    for (;;) {
      if (this.at >= this.buffer.length) throw new Error('snapshot data ends early')
      const b = this.buffer[this.at++]!
      v += (b & 0x7f) * 2 ** shift
      if (b < 0x80) return v
      shift += 7
    }
  }
}
