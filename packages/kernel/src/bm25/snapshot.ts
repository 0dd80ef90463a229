import type { SnapshotStore } from '../retrieval.js'
import { Base64Words, fromBase64, toBase64 } from './base64.js'
import type { FlatIndex } from './flat-index.js'
import { PackedStrings, PackedTerms } from './packed-strings.js'
import { BLOCK_BYTES, blockHeadBytes, PostingsBlocks } from './postings-blocks.js'

/**
 * The snapshot: a small `head` naming a build and its count of postings blocks, and the build's
 * parts, laid out so a new process maps them instead of parsing them, and reads the postings of the
 * terms it searches only. `docs` (JSON: the counts, the type and scope names, the length sums, the
 * first term of each postings block);
 * `ids` and `terms` (each one string, no separators: term t is `terms` from `termAt[t]` to
 * `termAt[t + 1]`, terms sorted); `data` (base64 of little-endian arrays, one entry a document: text
 * length and scope code (32 bits), title and tags lengths (16), type code (8)), decoded in one pass
 * into typed arrays; `table` (base64 of little-endian 32-bit offsets `idAt` and `termAt`), never
 * decoded whole: each word is read from the base64 when a lookup needs it; and `postings-0`,
 * `postings-1`… (blocks of consecutive terms of about 16 KB: base64 of the block's own offsets, where
 * each of its terms' slot gaps and then frequencies start and end, then each term's slot gaps as
 * varints, then the term frequencies, then the title and tag frequencies, a byte a posting), each
 * read when a search first needs one of its terms and decoded a term at a time (`PostingsBlocks`): a
 * new process reads the offsets of the blocks it searches, not of every term. Opening checks the
 * parts' lengths and the tables' ends, reading a block its offsets and length; each term's postings
 * are checked when decoded, and
 * a lookup that meets terms out of order throws `CorruptSnapshot`. Parts are written before the head,
 * so a head never names an incomplete build; the format names the analyzer (segmented words, Porter
 * stems). A head of an earlier format reads as none: the kernel re-indexes once.
 */
export const FORMAT = 'foundry-bm25/6'

export interface Head {
  format: string
  build: string
  revision: string
  /** Postings blocks of the build (`postings-0`…); absent in a head of an earlier format. */
  blocks?: number
}

const part = (build: string, name: string) => `${build}/${name}`

/** The stored head, of any format (the caller compares it with its own); undefined when none is stored or it is unreadable. */
export async function readHead(store: SnapshotStore): Promise<Head | undefined> {
  const text = await store.read('head')
  if (!text) return undefined
  try {
    const head = JSON.parse(text) as Head
    const blocks =
      head.blocks === undefined || (Number.isInteger(head.blocks) && head.blocks >= 0 && head.blocks < 2 ** 20)
    return typeof head.format === 'string' &&
      typeof head.build === 'string' &&
      typeof head.revision === 'string' &&
      blocks
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
  /** The first term of each postings block, ascending from 0. */
  blocks: number[]
}

/** Bytes of the `data` part for `n` documents: text length and scope code, title and tags lengths, type code. */
const dataBytes = (n: number) => 13 * n
/** Words of the `table` part: `idAt` (n + 1), then `termAt` (m + 1). */
const tableWords = (n: number, m: number) => n + 1 + m + 1
const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4

/** Whether typed arrays are little-endian here (they view the bytes as stored only then). */
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/**
 * The live documents of `index` as a snapshot's parts (slots renumbered densely, in order; a term at
 * a time), each postings block handed to `writeBlock` as it fills (so they are never all held), the
 * rest answered. `pause` is awaited between terms when it answers a promise (a turn for searches).
 */
export async function encode(
  index: FlatIndex,
  writeBlock: (b: number, text: string) => Promise<void>,
  pause: () => Promise<void> | undefined = () => undefined,
): Promise<Omit<Parts, 'blocks'> & { n: number; m: number; blockAt: number[] }> {
  const slots = index.slots
  const map = new Int32Array(slots).fill(-1)
  let n = 0
  for (let s = 0; s < slots; s++) if (index.alive[s]) map[s] = n++
  const terms: string[] = []
  const blocks: number[] = []
  let written = 0
  let block = newBlock()
  await index.eachPostings((term, p) => {
    const before = block.tf.length
    let last = -1
    for (let i = 0; i < p.n; i++) {
      const d = p.docs[i]!
      const to = d < slots ? map[d]! : -1
      if (to < 0) continue
      block.gaps.varint(to - last - 1)
      last = to
      block.tf.byte(p.tf[i]!)
      block.fields.byte(p.fields[i]!)
    }
    if (block.tf.length > before) {
      if (!block.ends.length) blocks.push(terms.length)
      block.ends.push(block.gaps.length, block.tf.length)
      terms.push(term)
      if (block.gaps.length + 2 * block.tf.length >= BLOCK_BYTES) {
        const text = blockPart(block)
        block = newBlock()
        return writeBlock(written++, text)
      }
    }
    return pause()
  })
  if (block.ends.length || !blocks.length) {
    if (!block.ends.length) blocks.push(0)
    await writeBlock(written++, blockPart(block))
  }
  const m = terms.length
  const data = new Uint8Array(dataBytes(n))
  const docs = views(data, n)
  const table = new Uint32Array(tableWords(n, m))
  const ids: string[] = []
  const sums: Info['sums'] = [0, 0, 0]
  for (let s = 0, length = 0; s < slots; s++) {
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
  for (let t = 0, length = 0; t < m; t++) table[n + 1 + t + 1] = length += terms[t]!.length
  const info: Info = { docs: n, terms: m, types: index.types, scopes: index.scopes, sums, blocks }
  return {
    docs: JSON.stringify(info),
    ids: ids.join(''),
    terms: terms.join(''),
    data: toBase64(littleEndian(data, n)),
    table: toBase64(littleEndian(new Uint8Array(table.buffer), 0)),
    n,
    m,
    blockAt: blocks,
  }
}

/** A postings block being written: its terms' gaps, term and field frequencies, and where each of its terms ends. */
function newBlock() {
  const size = 1 << 12
  return {
    gaps: new ByteWriter(size),
    tf: new ByteWriter(size),
    fields: new ByteWriter(size),
    /** Per term: the end of its gaps, the end of its postings. */
    ends: [] as number[],
  }
}

/**
 * A block as stored: its offsets for its k terms (`blockHeadBytes`: k + 1 little-endian 32-bit words
 * of where each term's gaps start in the block's bytes, past the offsets, then k + 1 of where its
 * postings start), then the gaps, the term and the field frequencies.
 */
function blockPart(block: ReturnType<typeof newBlock>): string {
  const k = block.ends.length / 2
  const head = blockHeadBytes(k)
  const offsets = new Uint32Array(2 * (k + 1))
  offsets[0] = head
  for (let i = 0; i < k; i++) {
    offsets[i + 1] = head + block.ends[2 * i]!
    offsets[k + 1 + i + 1] = block.ends[2 * i + 1]!
  }
  const bytes = new ByteWriter(head + block.gaps.length + 2 * block.tf.length)
  bytes.bytes(littleEndian(new Uint8Array(offsets.buffer), 0))
  bytes.bytes(block.gaps.done())
  bytes.bytes(block.tf.done())
  bytes.bytes(block.fields.done())
  return toBase64(bytes.done())
}

/**
 * Map a snapshot's parts into an empty index, its postings blocks read through `readBlock` when a
 * search needs them; false when the parts do not fit together.
 */
export function decode(
  index: FlatIndex,
  parts: Omit<Parts, 'blocks'>,
  readBlock: (block: number) => Promise<string | undefined>,
  keepChars?: number,
): boolean {
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
  if (idAt.get(0) !== 0 || idAt.get(n) !== parts.ids.length) return false
  if (termAt.get(0) !== 0 || termAt.get(m) !== parts.terms.length) return false
  index.restore({
    ...views(LITTLE ? data : littleEndian(data, n), n),
    ids: new PackedStrings(parts.ids, idAt),
    types: info.types,
    scopes: info.scopes,
    sums: info.sums,
  })
  index.setBase(new PostingsBlocks(new PackedTerms(parts.terms, termAt), info.blocks, readBlock, keepChars))
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
    info.sums.every(count) &&
    Array.isArray(info.blocks) &&
    info.blocks[0] === 0 &&
    info.blocks.every((t, b) => count(t) && t <= info.terms && (b === 0 || t > info.blocks[b - 1]!))
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

/** A build's parts, as stored: `blocks[b]` is part `postings-b`. */
interface Parts {
  docs: string
  ids: string
  terms: string
  data: string
  table: string
  blocks: string[]
}
const PARTS = ['docs', 'ids', 'terms', 'data', 'table'] as const
const blockName = (b: number) => `postings-${b}`

/** A build written (`writeSnapshot`): its head, and what `rebase` needs of its parts. */
export interface Written {
  head: Head
  terms: string
  table: string
  /** Documents and terms in the build, and the first term of each postings block. */
  n: number
  m: number
  blockAt: number[]
}

/**
 * Write `index` at `revision` as a new build: its postings blocks as they fill, its other parts, then
 * the head naming it (so a head never names an incomplete build). The build it replaces is the
 * caller's to remove (`removeBuild`) once nothing reads it. `pause` as `encode`'s, also between parts.
 */
export async function writeSnapshot(
  store: SnapshotStore,
  index: FlatIndex,
  revision: string,
  format = FORMAT,
  pause: () => Promise<void> | undefined = () => undefined,
): Promise<Written> {
  const build = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  const parts = await encode(
    index,
    async (b, text) => {
      await store.write(part(build, blockName(b)), text)
      await pause()
    },
    pause,
  )
  for (const name of PARTS) {
    await store.write(part(build, name), parts[name])
    await pause()
  }
  const head: Head = { format, build, revision, blocks: parts.blockAt.length }
  await store.write('head', JSON.stringify(head))
  const { terms, table, n, m, blockAt } = parts
  return { head, terms, table, n, m, blockAt }
}

/**
 * The index that reads the build just written of `index` (`written`), its postings read from `store`
 * as searches need them (what this process appended and decoded is dropped, as a new process would
 * read it): `index` itself when it has no dead slot (slots kept their numbers; it must be unchanged
 * since), its decoded postings kept; else a new one (`fresh`) read from the build, undefined when
 * that fails.
 */
export async function readWritten(
  index: FlatIndex,
  store: SnapshotStore,
  { head, terms, table, n, m, blockAt }: Written,
  fresh: () => FlatIndex,
  /** Characters of postings blocks kept read (`PostingsBlocks`). */
  keepChars?: number,
): Promise<FlatIndex | undefined> {
  if (index.dead) {
    const restored = fresh()
    return (await readSnapshot(store, head, restored, keepChars)) ? restored : undefined
  }
  const termAt = new Base64Words(table, n + 1, m + 1)
  const read = (b: number) => store.read(part(head.build, blockName(b)))
  index.rebase(new PostingsBlocks(new PackedTerms(terms, termAt), blockAt, read, keepChars))
  return index
}

/**
 * The build `head` names, mapped into `index` (its postings blocks read when a search needs them);
 * false when a part is gone or unreadable (it is only a cache).
 */
export async function readSnapshot(
  store: SnapshotStore,
  head: Head,
  index: FlatIndex,
  /** Characters of postings blocks kept read (`PostingsBlocks`). */
  keepChars?: number,
): Promise<boolean> {
  try {
    const [docs, ids, terms, data, table] = await Promise.all(PARTS.map((name) => store.read(part(head.build, name))))
    if (docs === undefined || ids === undefined || terms === undefined || data === undefined) return false
    if (table === undefined) return false
    const read = (b: number) => store.read(part(head.build, blockName(b)))
    return decode(index, { docs, ids, terms, data, table }, read, keepChars)
  } catch {
    return false
  }
}

export async function removeBuild(store: SnapshotStore, head: Head): Promise<void> {
  // Another process may still read the old build, or have removed it already: best effort, part by
  // part (a build of an earlier format has some of these parts and none of the others: `postings`
  // whole, and no count of blocks).
  const names = [...PARTS, 'postings', ...Array.from({ length: head.blocks ?? 0 }, (_, b) => blockName(b))]
  for (const name of names)
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
