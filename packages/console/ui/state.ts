// Small shared hooks: the route (the URL's hash), data from the API, and live change counters.
import { useEffect, useLayoutEffect, useState } from 'preact/hooks'
import { ApiError, call, follow } from './api.js'

/** `#/fact/fact-0012?x=1` → `{ parts: ['fact', 'fact-0012'], query }`. */
export interface Route {
  parts: string[]
  query: URLSearchParams
}

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?')
  const parts = path.split('/').filter(Boolean).map((p) => decodeURIComponent(p))
  return { parts: parts.length ? parts : ['memory'], query: new URLSearchParams(search) }
}

export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const on = () => setHash(location.hash)
    window.addEventListener('hashchange', on)
    return () => window.removeEventListener('hashchange', on)
  }, [])
  return parseRoute(hash)
}

/** A link target inside the console. */
export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`

/** Counters bumped by the `live` stream: a page that shows facts or runs reloads when its counter moves. */
const counters = { facts: 0, runs: 0, token: 0 }
const bumped = new EventTarget()
let liveStop: (() => void) | undefined

function startLive(): void {
  liveStop?.()
  liveStop = follow('live', (event) => {
    if (event === 'facts' || event === 'runs') {
      counters[event]++
      bumped.dispatchEvent(new Event('bump'))
    }
  })
}
window.addEventListener('foundry-token', () => {
  counters.token++
  bumped.dispatchEvent(new Event('bump'))
  startLive()
})
startLive()

/** The live counter of `kind`, re-rendering the caller when it moves. */
export function useLive(kind: 'facts' | 'runs'): number {
  const [value, setValue] = useState(counters[kind] + counters.token)
  useEffect(() => {
    const on = () => setValue(counters[kind] + counters.token)
    bumped.addEventListener('bump', on)
    return () => bumped.removeEventListener('bump', on)
  }, [kind])
  return value
}

/** The token counter alone: re-render when the token changes. */
export function useTokenVersion(): number {
  const [value, setValue] = useState(counters.token)
  useEffect(() => {
    const on = () => setValue(counters.token)
    bumped.addEventListener('bump', on)
    return () => bumped.removeEventListener('bump', on)
  }, [])
  return value
}

export interface Loaded<T> {
  data?: T
  error?: ApiError
  loading: boolean
}

/** `api/<path>`, loaded again whenever `path` or any of `deps` changes; the last answer stays shown while the next loads. */
export function useApi<T>(path: string | undefined, deps: unknown[] = []): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ loading: true })
  const version = useTokenVersion()
  // Asked as soon as the page is drawn: an effect would wait for the next frame, and the answer is
  // what a first load waits for.
  useLayoutEffect(() => {
    if (!path) return
    let live = true
    setState((s) => ({ ...s, loading: true }))
    call<T>(path).then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error: error instanceof ApiError ? error : new ApiError(0, 'NETWORK', String(error)), loading: false }),
    )
    return () => {
      live = false
    }
  }, [path, version, ...deps])
  return state
}
