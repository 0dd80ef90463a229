const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'

/** `run-` and 26 characters of Crockford base32: 130 bits from the platform's CSPRNG (unguessable, sortable by nothing). */
export function newRunId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(17))
  let out = ''
  let bits = 0
  let value = 0
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5 && out.length < 26) {
      out += ALPHABET[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
    value &= (1 << bits) - 1
  }
  return `run-${out}`
}

export const RUN_ID_PATTERN = /^run-[0-9a-z]{26}$/
