import { CorruptSnapshot } from './corrupt-snapshot.js'

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

/**
 * Little-endian 32-bit words read one at a time straight from base64 text (words `from` to
 * `from + length` of the bytes it encodes): a table a process opens without decoding it, each word
 * costing two groups of four characters when read. Callers check the text's length once.
 */
export class Base64Words {
  constructor(
    private readonly text: string,
    private readonly from: number,
    readonly length: number,
  ) {}

  get(i: number): number {
    if (!(i >= 0 && i < this.length)) throw new CorruptSnapshot(`word ${i} of a snapshot table is out of range`)
    const byte = (this.from + i) * 4
    const g = Math.floor(byte / 3)
    const { text } = this
    const a = group(text, g)
    const b = group(text, g + 1)
    // The six bytes of the two groups, most significant first; the word is four of them from `byte - 3g`.
    const six = a * 0x1000000 + b
    const shift = 8 * (2 - (byte - g * 3)) // bits below the word's last byte
    const word = Math.floor(six / 2 ** shift) % 2 ** 32 // bytes [skip, skip + 4) as big-endian
    return ((word >>> 24) | ((word >>> 8) & 0xff00) | ((word & 0xff00) << 8) | ((word & 0xff) << 24)) >>> 0
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

function group(text: string, g: number): number {
  const c = g * 4
  return (sextet(text, c) << 18) | (sextet(text, c + 1) << 12) | (sextet(text, c + 2) << 6) | sextet(text, c + 3)
}
