import type { SnapshotStore } from '../retrieval.js'
import type { EncodedPostings, FlatIndex } from './flat-index.js'

/**
 * The snapshot: a small `head` naming a build, and the build's three parts: `docs` (JSON: ids,
 * types, scopes), `terms` (the dictionary, sorted, one term a line) and `data` (base64 of: each
 * live document's field lengths, type and scope as varints; each term's posting count and gap
 * bytes; the slot gaps as varints; then the term frequencies, then the title and tag frequencies,
 * a byte a posting). No JSON parse of postings, and a new process decodes only the postings its
 * queries need (`EncodedPostings`). Parts are written before the head, so a head never
 * names an incomplete build; the format names the analyzer (segmented words, Porter stems).
 */
export const FORMAT = 'foundry-bm25/2'

export interface Head {
  format: string
  build: string
  revision: string
}

const part = (build: string, name: string) => `${build}/${name}`

export async function readHead(store: SnapshotStore): Promise<Head | undefined> {
  const text = await store.read('head')
  if (!text) return undefined
  try {
    const head = JSON.parse(text) as Head
    return head.format === FORMAT && typeof head.build === 'string' && typeof head.revision === 'string' ? head : undefined
  } catch {
    return undefined
  }
}

/** The live documents of `index` as a snapshot's parts (slots renumbered densely, in order). */
export function encode(index: FlatIndex): { docs: string; terms: string; data: string } {
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
  out.bytes(gaps.done())
  out.bytes(tf.done())
  out.bytes(fields.done())
  return { docs: JSON.stringify({ ids, types: index.types, scopes: index.scopes }), terms: terms.join('\n'), data: toBase64(out.done()) }
}

/** Fill an empty index from a snapshot's parts; false when they do not fit together. */
export function decode(index: FlatIndex, parts: { docs: string; terms: string; data: string }): boolean {
  const { ids, types, scopes } = JSON.parse(parts.docs) as { ids: string[]; types: string[]; scopes: string[] }
  const terms = parts.terms ? parts.terms.split('\n') : []
  const data = new ByteReader(fromBase64(parts.data))
  if (data.varint() !== ids.length) return false
  for (const id of ids) {
    const lengths: [number, number, number] = [data.varint(), data.varint(), data.varint()]
    index.addSlot(id, lengths, types[data.varint()] ?? '', scopes[data.varint()] ?? '')
  }
  // The term table: each term's posting count and gap bytes; the postings stay encoded until needed.
  const buf = data.buffer
  const count = new Int32Array(terms.length)
  const gapAt = new Int32Array(terms.length)
  const postAt = new Int32Array(terms.length)
  let gapBytes = 0
  let total = 0
  for (let t = 0; t < terms.length; t++) {
    count[t] = data.varint()
    postAt[t] = total
    gapAt[t] = gapBytes
    total += count[t]!
    gapBytes += data.varint()
  }
  for (let t = 1; t < terms.length; t++) if (!(terms[t - 1]! < terms[t]!)) return false // looked up by binary search
  const start = data.at
  for (let t = 0; t < terms.length; t++) gapAt[t]! += start
  const tfAt = start + gapBytes
  if (buf.length !== tfAt + 2 * total) return false
  index.setBase({ terms, count, gapAt, postAt, bytes: buf, tfAt, fieldsAt: tfAt + total } satisfies EncodedPostings)
  return true
}

export async function writeSnapshot(store: SnapshotStore, index: FlatIndex, revision: string, replaces: Head | undefined): Promise<Head> {
  const build = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  const parts = encode(index)
  await store.write(part(build, 'docs'), parts.docs)
  await store.write(part(build, 'terms'), parts.terms)
  await store.write(part(build, 'data'), parts.data)
  const head: Head = { format: FORMAT, build, revision }
  await store.write('head', JSON.stringify(head))
  if (replaces && replaces.build !== build) await removeBuild(store, replaces)
  return head
}

/** The build `head` names, decoded into `index`; false when a part is gone or unreadable (it is only a cache). */
export async function readSnapshot(store: SnapshotStore, head: Head, index: FlatIndex): Promise<boolean> {
  try {
    const [docs, terms, data] = await Promise.all(['docs', 'terms', 'data'].map((name) => store.read(part(head.build, name))))
    if (docs === undefined || terms === undefined || data === undefined) return false
    return decode(index, { docs, terms, data })
  } catch {
    return false
  }
}

export async function removeBuild(store: SnapshotStore, head: Head): Promise<void> {
  // Another process may still read the old build, or have removed it already: best effort.
  try {
    for (const name of ['docs', 'terms', 'data']) await store.remove(part(head.build, name))
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

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const ENCODE = new Uint8Array(64).map((_, i) => ALPHABET.charCodeAt(i))
const DECODE = new Uint8Array(128).fill(255)
for (let i = 0; i < 64; i++) DECODE[ALPHABET.charCodeAt(i)] = i

/** Base64 through typed arrays and TextDecoder: the kernel runs in any JS runtime, so no Node `Buffer`. */
export function toBase64(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4)
  let o = 0
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out[o++] = ENCODE[v >> 18]!
    out[o++] = ENCODE[(v >> 12) & 63]!
    out[o++] = ENCODE[(v >> 6) & 63]!
    out[o++] = ENCODE[v & 63]!
  }
  const left = bytes.length - i
  if (left) {
    const v = (bytes[i]! << 16) | (left > 1 ? bytes[i + 1]! << 8 : 0)
    out[o++] = ENCODE[v >> 18]!
    out[o++] = ENCODE[(v >> 12) & 63]!
    out[o++] = left > 1 ? ENCODE[(v >> 6) & 63]! : 61
    out[o++] = 61
  }
  return new TextDecoder().decode(out)
}

export function fromBase64(text: string): Uint8Array {
  const chars = new TextEncoder().encode(text)
  let end = chars.length
  while (end > 0 && chars[end - 1] === 61) end--
  const out = new Uint8Array(Math.floor((end * 3) / 4))
  const at = (i: number) => {
    const v = DECODE[chars[i]!]
    if (v === undefined || v === 255) throw new Error('snapshot data is not base64')
    return v
  }
  let o = 0
  let i = 0
  for (; i + 3 < end; i += 4) {
    const v = (at(i) << 18) | (at(i + 1) << 12) | (at(i + 2) << 6) | at(i + 3)
    out[o++] = v >> 16
    out[o++] = (v >> 8) & 255
    out[o++] = v & 255
  }
  if (end - i >= 2) {
    const v = (at(i) << 18) | (at(i + 1) << 12) | (end - i > 2 ? at(i + 2) << 6 : 0)
    out[o++] = v >> 16
    if (end - i > 2) out[o++] = (v >> 8) & 255
  }
  return out.subarray(0, o)
}
