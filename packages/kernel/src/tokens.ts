/** Foundry's token estimate: ceil(characters / 4). Deterministic, dependency-free, used for every budget. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

/** Bytes of the UTF-8 encoding, without `Buffer`. */
export function utf8Bytes(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) (bytes += 4), i++
    else bytes += 3
  }
  return bytes
}
