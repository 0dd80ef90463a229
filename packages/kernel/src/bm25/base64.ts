import { CorruptSnapshot } from './corrupt-snapshot.js'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const ENCODE = new Uint8Array(64).map((_, i) => ALPHABET.charCodeAt(i))
const DECODE = new Uint8Array(128).fill(255)
for (let i = 0; i < 64; i++) DECODE[ALPHABET.charCodeAt(i)] = i

/**
 * This runtime's own base64 decoder, or undefined: `Uint8Array.fromBase64` where defined (strict),
 * else `Buffer` (Node, Bun; it skips characters outside the alphabet, so callers check the length it
 * decoded). Decoding in the runtime costs a fraction of decoding in JavaScript, which a new process
 * runs cold; the kernel runs in any JS runtime, so the JavaScript decoder stays the fallback.
 */
const nativeDecoder = (): ((text: string) => Uint8Array) | undefined => {
  const fromBase64 = (Uint8Array as { fromBase64?: (text: string) => Uint8Array }).fromBase64
  if (typeof fromBase64 === 'function') return (text) => fromBase64.call(Uint8Array, text)
  const buffer = (globalThis as { Buffer?: { from(text: string, encoding: 'base64'): Uint8Array } }).Buffer
  if (typeof buffer?.from === 'function') return (text) => buffer.from(text, 'base64')
  return undefined
}
let native: ((text: string) => Uint8Array) | undefined | null = null

/** Decode `text` (whole base64 groups) in the runtime, or undefined without a native decoder; `CorruptSnapshot` unless it is base64. */
function decodeNative(text: string): Uint8Array | undefined {
  if (native === null) native = nativeDecoder()
  if (!native) return undefined
  let bytes: Uint8Array
  try {
    bytes = native(text)
  } catch {
    throw new CorruptSnapshot('snapshot data is not base64')
  }
  if (bytes.length !== decodedLength(text)) throw new CorruptSnapshot('snapshot data is not base64')
  return bytes
}

/** Bytes that base64 `text` of whole groups encodes (its length less its padding). */
function decodedLength(text: string): number {
  let end = text.length
  while (end > 0 && end > text.length - 2 && text.charCodeAt(end - 1) === 61) end--
  return Math.floor((end * 3) / 4)
}

/** Ranges shorter than this (in characters) decode in JavaScript: a call into the runtime costs more. */
const NATIVE_RANGE = 64

/** Base64 through typed arrays and TextDecoder (no Node `Buffer`: the kernel runs in any JS runtime). */
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

/** The bytes base64 `text` encodes, decoded by the runtime when it can; `CorruptSnapshot` unless it is base64. */
export function fromBase64(text: string): Uint8Array {
  if (text.length % 4 === 0) {
    const bytes = decodeNative(text)
    if (bytes) return bytes
  }
  return fromBase64Js(text)
}

/** `fromBase64` in JavaScript alone (the fallback; exported for its tests). */
export function fromBase64Js(text: string): Uint8Array {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--
  const out = new Uint8Array(Math.floor((end * 3) / 4))
  let o = 0
  let i = 0
  // Read straight from the string (no encoded copy); a character outside the alphabet reads as 255 and fails the group.
  for (; i + 3 < end; i += 4) {
    const a = code(text, i)
    const b = code(text, i + 1)
    const c = code(text, i + 2)
    const d = code(text, i + 3)
    if ((a | b | c | d) > 63) throw new CorruptSnapshot('snapshot data is not base64')
    const v = (a << 18) | (b << 12) | (c << 6) | d
    out[o++] = v >> 16
    out[o++] = (v >> 8) & 255
    out[o++] = v & 255
  }
  if (end - i >= 2) {
    const a = code(text, i)
    const b = code(text, i + 1)
    const c = end - i > 2 ? code(text, i + 2) : 0
    if ((a | b | c) > 63) throw new CorruptSnapshot('snapshot data is not base64')
    const v = (a << 18) | (b << 12) | (c << 6)
    out[o++] = v >> 16
    if (end - i > 2) out[o++] = (v >> 8) & 255
  }
  return out.subarray(0, o)
}

/** The sextet of the character at `i`, 255 for one outside the alphabet. */
function code(text: string, i: number): number {
  const c = text.charCodeAt(i)
  return c < 128 ? DECODE[c]! : 255
}

/** Bytes `from` to `to` of the data `text` encodes, decoding only the characters that hold them. */
export function base64Range(text: string, from: number, to: number): Uint8Array {
  const first = Math.floor(from / 3)
  const last = Math.ceil(to / 3)
  if ((last - first) * 4 >= NATIVE_RANGE && last * 4 <= text.length) {
    const bytes = decodeNative(text.slice(first * 4, last * 4))
    if (bytes) return bytes.subarray(from - first * 3, to - first * 3)
  }
  return base64RangeJs(text, from, to)
}

/** `base64Range` in JavaScript alone (the fallback; exported for its tests). */
export function base64RangeJs(text: string, from: number, to: number): Uint8Array {
  const first = Math.floor(from / 3)
  const last = Math.ceil(to / 3)
  const out = new Uint8Array((last - first) * 3)
  let o = 0
  for (let g = first; g < last; g++) {
    const c = g * 4
    const v = (sextet(text, c) << 18) | (sextet(text, c + 1) << 12) | (sextet(text, c + 2) << 6) | sextet(text, c + 3)
    out[o++] = v >> 16
    out[o++] = (v >> 8) & 255
    out[o++] = v & 255
  }
  return out.subarray(from - first * 3, to - first * 3)
}

function sextet(text: string, i: number): number {
  const c = text.charCodeAt(i)
  if (c === 61) return 0 // padding
  const v = c < 128 ? DECODE[c]! : 255
  if (v === 255) throw new CorruptSnapshot('snapshot data is not base64')
  return v
}

/** Words a `Base64Words` decodes together: 3 KB. */
const PIECE_WORDS = 768

/** Pieces a `Base64Words` keeps decoded (96 KB at most): a lookup's binary search meets a few, most of them shared. */
const KEPT_PIECES = 32

/**
 * Little-endian 32-bit words read from base64 text (words `from` to `from + length` of the bytes it
 * encodes): a table a process opens without decoding it. A read decodes the piece of 768 words around
 * it, in the runtime where it can, and keeps the last pieces read: a binary search over the table
 * decodes a handful of pieces once, not eight characters in JavaScript at every step. Callers check
 * the text's length once.
 */
export class Base64Words {
  private readonly pieces = new Map<number, DataView>()

  constructor(
    private readonly text: string,
    private readonly from: number,
    readonly length: number,
  ) {}

  get(i: number): number {
    if (!(i >= 0 && i < this.length)) throw new CorruptSnapshot(`word ${i} of a snapshot table is out of range`)
    const piece = Math.floor(i / PIECE_WORDS)
    const view = this.pieces.get(piece) ?? this.decodePiece(piece)
    return view.getUint32(4 * (i - piece * PIECE_WORDS), true)
  }

  /** Words `768 piece` to `768 (piece + 1)` of this table (fewer in the last piece), kept for the next reads. */
  private decodePiece(piece: number): DataView {
    const start = this.from + piece * PIECE_WORDS
    const end = Math.min(start + PIECE_WORDS, this.from + this.length)
    const bytes = base64Range(this.text, 4 * start, 4 * end)
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    if (this.pieces.size >= KEPT_PIECES) this.pieces.delete(this.pieces.keys().next().value!)
    this.pieces.set(piece, view)
    return view
  }

  /** Every word, decoded in one pass (for a reader that visits them all). */
  toArray(): Uint32Array {
    const bytes = base64Range(this.text, 4 * this.from, 4 * (this.from + this.length))
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const out = new Uint32Array(this.length)
    for (let i = 0; i < out.length; i++) out[i] = view.getUint32(4 * i, true)
    return out
  }
}
