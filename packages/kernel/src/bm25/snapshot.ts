import type { SnapshotStore } from '../retrieval.js'
import type { FlatIndex } from './flat-index.js'

/**
 * The snapshot: a small `head` naming a build, and the build's three parts: `docs` (JSON: ids,
 * types, scopes), `terms` (the dictionary, one term a line, in postings order) and `data` (base64
 * of varints: each live document's field lengths, type and scope, each term's posting count and
 * slot gaps; then the term frequencies, then the title and tag frequencies, a byte a posting). No JSON parse of postings: a new process decodes
 * 100k facts' index in tens of milliseconds. Parts are written before the head, so a head never
 * names an incomplete build; the format names the analyzer (segmented words, Porter stems).
 */
export const FORMAT = 'foundry-bm25/1'

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
  const tf = new ByteWriter(1 << 16)
  const fields = new ByteWriter(1 << 16)
  for (const term of [...index.terms.keys()].sort()) {
    const p = index.terms.get(term)!
    let live = 0
    for (let i = 0; i < p.n; i++) if (map[p.docs[i]!]! >= 0) live++
    if (!live) continue
    terms.push(term)
    out.varint(live)
    let last = -1
    for (let i = 0; i < p.n; i++) {
      const to = map[p.docs[i]!]!
      if (to < 0) continue
      out.varint(to - last - 1)
      last = to
      tf.byte(p.tf[i]!)
      fields.byte(p.fields[i]!)
    }
  }
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
  // Counts and slot gaps decoded inline, in locals: a call or a closure a varint costs more than the decoding.
  const buf = data.buffer
  const length = buf.length
  let at = data.at
  const counts = new Int32Array(terms.length)
  let total = 0
  const docs = new Int32Array(Math.max(16, Math.floor((length - at) / 3))) // a posting takes 3 bytes or more
  for (let t = 0; t < terms.length; t++) {
    let n = 0
    for (let shift = 0, b = 0x80; b >= 0x80 && at < length; shift += 7) (b = buf[at++]!), (n += (b & 0x7f) * 2 ** shift)
    if (total + n > docs.length) return false
    counts[t] = n
    let last = -1
    for (let i = total, end = total + n; i < end && at < length; i++) {
      let b = buf[at++]!
      let gap = b & 0x7f
      for (let shift = 7; b >= 0x80 && at < length; shift += 7) (b = buf[at++]!), (gap += (b & 0x7f) * 2 ** shift)
      docs[i] = last = last + 1 + gap
    }
    total += n
  }
  if (buf.length - at !== total * 2) return false
  const tf = buf.subarray(at, at + total)
  const fields = buf.subarray(at + total, at + 2 * total)
  for (let t = 0, from = 0; t < terms.length; from += counts[t++]!) {
    const to = from + counts[t]!
    index.load(terms[t]!, docs.subarray(from, to), tf.subarray(from, to), fields.subarray(from, to))
  }
  index.settle()
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
