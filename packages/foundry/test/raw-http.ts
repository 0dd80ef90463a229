import { connect } from 'node:net'

/** How a raw HTTP exchange ended: the status the server answered (if any), or that it hung. */
export interface RawExchange {
  /** The status line's code; undefined when the server closed without answering (a truncated request). */
  status: number | undefined
  /** No answer and no close within the bound. */
  hung: boolean
}

/**
 * Send `bytes` as they are over a fresh TCP connection to `127.0.0.1:port` (for requests no HTTP
 * client would send: bad framing, truncated bodies, garbage), half-closing the connection after them
 * when `end`. Settles once the server has closed the connection, or has sent the head of an event
 * stream (an open stream is an answer), or after `timeoutMs` (then `hung`).
 */
export function rawExchange(port: number, bytes: Buffer, end: boolean, timeoutMs = 15_000): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let text = ''
    let settled = false
    const finish = (hung: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text)
      resolve({ status: match ? Number(match[1]) : undefined, hung })
    }
    const timer = setTimeout(() => finish(true), timeoutMs)
    socket.on('data', (chunk: Buffer) => {
      if (text.length < 64 * 1024) text += chunk.toString('latin1')
      const head = text.indexOf('\r\n\r\n')
      if (head > 0 && /^content-type:\s*text\/event-stream/im.test(text.slice(0, head))) finish(false)
    })
    socket.on('close', () => finish(false))
    socket.on('error', () => finish(false))
    socket.write(bytes, () => {
      if (end) socket.end()
    })
  })
}
