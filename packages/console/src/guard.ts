import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'))
}

/** The name part of a Host header (`[::1]:7413` → `[::1]`, `localhost:80` → `localhost`). */
function hostname(header: string): string {
  const m = /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(header.trim())
  return (m?.[1] ?? '').toLowerCase()
}

/**
 * DNS-rebinding and cross-site protection: the Host header must name a loopback address or one of
 * `hostnames`, and an Origin header, when sent, must be this same origin. Returns why a request is
 * refused, or undefined when it may go on.
 */
export function refusal(req: IncomingMessage, hostnames: readonly string[]): string | undefined {
  const host = req.headers.host ?? ''
  const name = hostname(host)
  if (!name || !(isLoopback(name) || hostnames.includes(name))) return `Invalid Host header: ${host.slice(0, 100)}`
  const origin = req.headers.origin
  if (
    origin !== undefined &&
    origin.toLowerCase() !== `http://${host.toLowerCase()}` &&
    origin.toLowerCase() !== `https://${host.toLowerCase()}`
  )
    return `Invalid Origin header: ${origin.slice(0, 100)}`
  return undefined
}
