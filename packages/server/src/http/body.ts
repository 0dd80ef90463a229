import type { IncomingMessage } from 'node:http'

/** The largest request body read (as `foundry mcp`'s stdio line limit); a larger one gets 413 unread. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024

/** Why a body was not read: the status to answer and one line saying why and what to do. */
export class BodyRefused extends Error {
  constructor(
    readonly status: 413 | 429,
    message: string,
  ) {
    super(message)
  }
}

/** The request bytes each token has in flight, bounded: what keeps one token from filling the memory with bodies. */
export interface ByteBudget {
  /**
   * Read `req`'s body for `token`, counting its bytes against the token's budget from the declared
   * Content-Length (before any byte is read) or as they arrive. Rejects with `BodyRefused` (413 over
   * `MAX_BODY_BYTES`, 429 over the budget while the token has other bytes in flight). The bytes stay
   * counted until `release` (the answer was sent).
   */
  read(req: IncomingMessage, token: string): { body: Promise<Buffer>; release: () => void }
}

export function createByteBudget(perToken: number): ByteBudget {
  const held = new Map<string, number>()
  return {
    read(req, token) {
      let counted = 0
      let released = false
      /** Count the body as `size` bytes; refused when the token's other requests hold bytes and both together pass the budget (one body alone always fits). */
      const grow = (size: number) => {
        if (size <= counted || released) return
        const others = (held.get(token) ?? 0) - counted
        if (others > 0 && others + size > perToken)
          throw new BodyRefused(
            429,
            `Too many bytes in flight for the token ${token}: its other requests hold ${others} bytes and the limit is ${perToken} (FOUNDRY_HTTP_INFLIGHT_BYTES); retry once they are answered`,
          )
        held.set(token, others + size)
        counted = size
      }
      const release = () => {
        if (released) return
        released = true
        const left = (held.get(token) ?? 0) - counted
        if (left > 0) held.set(token, left)
        else held.delete(token)
      }
      const body = (async () => {
        const declared = Number(req.headers['content-length'])
        if (declared > MAX_BODY_BYTES)
          throw new BodyRefused(
            413,
            `Payload too large: ${declared} bytes is over the limit of ${MAX_BODY_BYTES} bytes (10 MiB); send smaller arguments`,
          )
        if (declared > 0) grow(declared)
        const chunks: Buffer[] = []
        let size = 0
        for await (const chunk of req) {
          size += (chunk as Buffer).length
          if (size > MAX_BODY_BYTES)
            throw new BodyRefused(
              413,
              `Payload too large: over the limit of ${MAX_BODY_BYTES} bytes (10 MiB); send smaller arguments`,
            )
          grow(size)
          chunks.push(chunk as Buffer)
        }
        return Buffer.concat(chunks)
      })()
      return { body, release }
    },
  }
}
