import type { SnapshotStore } from '../retrieval.js'
import { Base64Words, fromBase64, toBase64 } from './base64.js'
import type { FlatIndex } from './flat-index.js'
import { PackedStrings, PackedTerms } from './packed-strings.js'

/**
 * The snapshot: a small `head` naming a build, and the build's parts, laid out so a new process maps
 * them instead of parsing them. `docs` (JSON: the counts, the type and scope names, the length sums);
 * `ids` and `terms` (each one string, no separators: term t is `terms` from `termAt[t]` to
 * `termAt[t + 1]`, terms sorted); `data` (base64 of little-endian arrays, one entry a document: text
 * length and scope code (32 bits), title and tags lengths (16), type code (8)), decoded in one pass
 * into typed arrays; `table` (base64 of little-endian 32-bit offsets `idAt`, `termAt`, `gapAt`,
 * `postAt`), never decoded whole: each word is read from the base64 when a lookup needs it; and
 * `postings` (base64 of each term's slot gaps as varints, then the term frequencies, then the title
 * and tag frequencies, a byte a posting), decoded a term at a time (`EncodedPostings`). Opening
 * checks the parts' lengths and the tables' ends; each term's postings are checked when decoded, and
 * a lookup that meets terms out of order throws `CorruptSnapshot`. Parts are written before the head,
 * so a head never names an incomplete build; the format names the analyzer (segmented words, Porter
 * stems). A head of an earlier format reads as none: the kernel re-indexes once.
 */
export const FORMAT = 'foundry-bm25/4'

export interface Head {
  format: string
  build: string
  revision: string
}

const part = (build: string, name: string) => `${build}/${name}`

/** The stored head, of any format (the caller compares it with its own); undefined when none is stored or it is unreadable. */
export async function readHead(store: SnapshotStore): Promise<Head | undefined> {
  const text = await store.read('head')
  if (!text) return undefined
  try {
    const head = JSON.parse(text) as Head
    return typeof head.format === 'string' && typeof head.build === 'string' && typeof head.revision === 'string'
      ? head
      : undefined
  } catch {
    return undefined
  }
}

/** The `docs` part. */
interface Info {
  docs: number
  terms: number
  types: string[]
  scopes: string[]
  sums: [number, number, number]
}

/** Bytes of the `data` part for `n` documents: text length and scope code, title and tags lengths, type code. */
const dataBytes = (n: number) => 13 * n
/** Words of the `table` part: `idAt` (n + 1), then `termAt`, `gapAt`, `postAt` (m + 1 each). */
const tableWords = (n: number, m: number) => n + 1 + 3 * (m + 1)
const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4

/** Whether typed arrays are little-endian here (they view the bytes as stored only then). */
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** The live documents of `index` as a snapshot's parts (slots renumbered densely, in order). */
export function encode(index: FlatIndex): Parts {
  const map = new Int32Array(index.slots).fill(-1)
  let n = 0
  for (let s = 0; s < index.slots; s++) if (index.alive[s]) map[s] = n++
  const terms: string[] = []
  const ends: number[] = [] // per term: its gap bytes' end, its postings' end
  const gaps = new ByteWriter(1 << 16)
  const tf = new ByteWriter(1 << 16)
  const fields = new ByteWriter(1 << 16)
  const all = index.allPostings()
  for (const term of [...all.keys()].sort()) {
    const p = all.get(term)!
    const before = tf.length
    let last = -1
    for (let i = 0; i < p.n; i++) {
      const to = map[p.docs[i]!]!
      if (to < 0) continue
      gaps.varint(to - last - 1)
      last = to
      tf.byte(p.tf[i]!)
      fields.byte(p.fields[i]!)
    }
    if (tf.length > before) terms.push(term), ends.push(gaps.length, tf.length)
  }
  const m = terms.length
  const data = new Uint8Array(dataBytes(n))
  const docs = views(data, n)
  const table = new Uint32Array(tableWords(n, m))
  const ids: string[] = []
  const sums: Info['sums'] = [0, 0, 0]
  for (let s = 0, length = 0; s < index.slots; s++) {
    const d = map[s]!
    if (d < 0) continue
    const id = index.ids.get(s)
    ids.push(id)
    table[d + 1] = length += id.length
    sums[0] += docs.lenText[d] = index.lenText[s]!
    sums[1] += docs.lenTitle[d] = index.lenTitle[s]!
    sums[2] += docs.lenTags[d] = index.lenTags[s]!
    docs.typeOf[d] = index.typeOf[s]!
    docs.scopeOf[d] = index.scopeOf[s]!
  }
  const [termAt, gapAt, postAt] = [n + 1, n + 1 + (m + 1), n + 1 + 2 * (m + 1)]
  for (let t = 0, length = 0; t < m; t++) {
    table[termAt + t + 1] = length += terms[t]!.length
    table[gapAt + t + 1] = ends[2 * t]!
    table[postAt + t + 1] = ends[2 * t + 1]!
  }
  const postings = new ByteWriter(gaps.length + tf.length + fields.length)
  postings.bytes(gaps.done())
  postings.bytes(tf.done())
  postings.bytes(fields.done())
  const info: Info = { docs: n, terms: m, types: index.types, scopes: index.scopes, sums }
  return {
    docs: JSON.stringify(info),
    ids: ids.join(''),
    terms: terms.join(''),
    data: toBase64(littleEndian(data, n)),
    table: toBase64(littleEndian(new Uint8Array(table.buffer), 0)),
    postings: toBase64(postings.done()),
  }
}

/** Map a snapshot's parts into an empty index; false when they do not fit together. */
export function decode(index: FlatIndex, parts: Parts): boolean {
  const info = JSON.parse(parts.docs) as Info
  if (!validInfo(info)) return false
  const { docs: n, terms: m } = info
  if (parts.data.length !== base64Length(dataBytes(n))) return false
  if (parts.table.length !== base64Length(4 * tableWords(n, m))) return false
  const decoded = fromBase64(parts.data)
  if (decoded.length !== dataBytes(n)) return false
  // A runtime's decoder may hand back bytes at any offset of a shared buffer: the 32-bit views need a multiple of 4.
  const data = decoded.byteOffset % 4 ? new Uint8Array(decoded) : decoded
  const idAt = new Base64Words(parts.table, 0, n + 1)
  const termAt = new Base64Words(parts.table, n + 1, m + 1)
  const gapAt = new Base64Words(parts.table, n + 1 + (m + 1), m + 1)
  const postAt = new Base64Words(parts.table, n + 1 + 2 * (m + 1), m + 1)
  if (idAt.get(0) !== 0 || idAt.get(n) !== parts.ids.length) return false
  if (termAt.get(0) !== 0 || termAt.get(m) !== parts.terms.length) return false
  if (gapAt.get(0) !== 0 || postAt.get(0) !== 0) return false
  const tfAt = gapAt.get(m)
  const total = postAt.get(m)
  if (parts.postings.length !== base64Length(tfAt + 2 * total)) return false
  index.restore({
    ...views(LITTLE ? data : littleEndian(data, n), n),
    ids: new PackedStrings(parts.ids, idAt),
    types: info.types,
    scopes: info.scopes,
    sums: info.sums,
  })
  index.setBase({
    terms: new PackedTerms(parts.terms, termAt),
    gapAt,
    postAt,
    postings: parts.postings,
    tfAt,
    fieldsAt: tfAt + total,
  })
  return true
}

function validInfo(info: Info): boolean {
  const count = (v: unknown) => Number.isInteger(v) && (v as number) >= 0
  const names = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string')
  return (
    count(info?.docs) &&
    count(info.terms) &&
    names(info.types) &&
    names(info.scopes) &&
    Array.isArray(info.sums) &&
    info.sums.length === 3 &&
    info.sums.every(count)
  )
}

/** The per-document arrays of `data` (4-byte arrays first, so each view is aligned). */
function views(data: Uint8Array, n: number) {
  const { buffer, byteOffset: at } = data
  return {
    lenText: new Uint32Array(buffer, at, n),
    scopeOf: new Uint32Array(buffer, at + 4 * n, n),
    lenTitle: new Uint16Array(buffer, at + 8 * n, n),
    lenTags: new Uint16Array(buffer, at + 10 * n, n),
    typeOf: new Uint8Array(buffer, at + 12 * n, n),
  }
}

/**
 * `bytes` (32-bit words, then `n` pairs of 16-bit words from byte 8n, when `n` is given: `data`'s
 * layout) swapped in place between this platform's order and little-endian; nothing to do on a
 * little-endian platform.
 */
function littleEndian(bytes: Uint8Array, n: number): Uint8Array {
  if (LITTLE) return bytes
  const words = n ? 8 * n : bytes.length
  for (let i = 0; i + 3 < words; i += 4) {
    ;[bytes[i], bytes[i + 3]] = [bytes[i + 3]!, bytes[i]!]
    ;[bytes[i + 1], bytes[i + 2]] = [bytes[i + 2]!, bytes[i + 1]!]
  }
  for (let i = words; n && i < 12 * n; i += 2) [bytes[i], bytes[i + 1]] = [bytes[i + 1]!, bytes[i]!]
  return bytes
}

/** A build's parts, as stored. */
interface Parts {
  docs: string
  ids: string
  terms: string
  data: string
  table: string
  postings: string
}
const PARTS = ['docs', 'ids', 'terms', 'data', 'table', 'postings'] as const

export async function writeSnapshot(
  store: SnapshotStore,
  index: FlatIndex,
  revision: string,
  replaces: Head | undefined,
  format = FORMAT,
): Promise<Head> {
  const build = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  const parts = encode(index)
  for (const name of PARTS) await store.write(part(build, name), parts[name])
  const head: Head = { format, build, revision }
  await store.write('head', JSON.stringify(head))
  if (replaces && replaces.build !== build) await removeBuild(store, replaces)
  return head
}

/** The build `head` names, decoded into `index`; false when a part is gone or unreadable (it is only a cache). */
export async function readSnapshot(store: SnapshotStore, head: Head, index: FlatIndex): Promise<boolean> {
  try {
    const [docs, ids, terms, data, table, postings] = await Promise.all(
      PARTS.map((name) => store.read(part(head.build, name))),
    )
    if (docs === undefined || ids === undefined || terms === undefined || data === undefined) return false
    if (table === undefined || postings === undefined) return false
    return decode(index, { docs, ids, terms, data, table, postings })
  } catch {
    return false
  }
}

export async function removeBuild(store: SnapshotStore, head: Head): Promise<void> {
  // Another process may still read the old build, or have removed it already: best effort, part by
  // part (a build of an earlier format has some of these parts and none of the others).
  for (const name of PARTS)
    try {
      await store.remove(part(head.build, name))
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
