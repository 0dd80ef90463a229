import { request } from 'node:http'

/**
 * One raw JSON POST (node:http, so any Host or Authorization header can be sent, and nothing an MCP
 * client would add): the status and the body as text. Rejects on a connection error, or after 10 s.
 */
export function rawPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        timeout: 10_000,
      },
      (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on('error', reject)
    req.on('timeout', () => req.destroy(new Error('timed out')))
    req.end(JSON.stringify(body))
  })
}
