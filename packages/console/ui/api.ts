// Talking to the console's API: JSON calls and server-sent events, both with the bearer token the
// person entered (kept for this tab only, in sessionStorage; never a cookie).

const TOKEN_KEY = 'foundry-console-token'

export function token(): string {
  return sessionStorage.getItem(TOKEN_KEY) ?? ''
}

export function setToken(value: string): void {
  if (value) sessionStorage.setItem(TOKEN_KEY, value)
  else sessionStorage.removeItem(TOKEN_KEY)
  window.dispatchEvent(new Event('foundry-token'))
}

/** An API error: the server's code and its one-line message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

function headers(json: boolean): Record<string, string> {
  const h: Record<string, string> = { accept: 'application/json' }
  if (json) h['content-type'] = 'application/json'
  const t = token()
  if (t) h.authorization = `Bearer ${t}`
  return h
}

/** GET (or POST with `body`) `api/<path>`, relative to the page, so the console works under any base path. */
export async function call<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`api/${path}`, body === undefined ? { headers: headers(false) } : { method: 'POST', headers: headers(true), body: JSON.stringify(body) })
  const value = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } }
  if (!res.ok) throw new ApiError(res.status, value.error?.code ?? 'ERROR', value.error?.message ?? `HTTP ${res.status}`)
  return value as T
}

/**
 * Follow the server-sent events of `api/<path>` (read through fetch, so the token goes in a header),
 * calling `on(event, data)` for each; reconnects after a drop, and gives up on a refusal (401, 403,
 * 404: a new token starts it again). Returns the function that stops it.
 */
export function follow(path: string, on: (event: string, data: unknown) => void): () => void {
  const abort = new AbortController()
  let stopped = false
  const run = async () => {
    while (!stopped) {
      try {
        const res = await fetch(`api/${path}`, { headers: { ...headers(false), accept: 'text/event-stream' }, signal: abort.signal })
        if ([401, 403, 404].includes(res.status)) return
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`)
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
        let buffer = ''
        for (;;) {
          const { value, done } = await reader.read()
          if (done) break
          buffer += value
          let end: number
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            let event = 'message'
            let data = ''
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) event = line.slice(7)
              else if (line.startsWith('data: ')) data += line.slice(6)
            }
            if (data) on(event, JSON.parse(data))
          }
        }
      } catch {
        if (stopped) return
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 1000))
    }
  }
  void run()
  return () => {
    stopped = true
    abort.abort()
  }
}
