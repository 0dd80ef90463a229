// Memory: search as you type through the project's own retriever, or browse by type and status.
import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { highlight } from '../markdown.js'
import { Badge, ErrorLine } from '../parts.js'
import type { FactType } from '@foundry/kernel'
import type { FactsAnswer } from '../../src/wire.js'
import { href, useApi, useLive, type Route } from '../state.js'

/** The kernel's fact types, in its order; a type added to or removed from the kernel fails the typecheck here. */
const TYPES: Record<FactType, true> = { decision: true, constraint: true, convention: true, domain: true, risk: true, metric: true, glossary: true }
export const FACT_TYPES = Object.keys(TYPES)
const STATUSES = ['active', 'superseded', 'expired', 'forgotten', 'all']

export function MemoryPage({ route }: { route: Route }) {
  const [q, setQ] = useState(route.query.get('q') ?? '')
  const [type, setType] = useState(route.query.get('type') ?? '')
  const [status, setStatus] = useState(route.query.get('status') ?? 'active')
  const [asked, setAsked] = useState(q)
  useEffect(() => {
    const t = setTimeout(() => setAsked(q), 120)
    return () => clearTimeout(t)
  }, [q])
  useEffect(() => {
    const params = new URLSearchParams({ ...(asked && { q: asked }), ...(type && { type }), ...(status !== 'active' && { status }) })
    history.replaceState(null, '', `#/memory${params.size ? `?${params}` : ''}`)
  }, [asked, type, status])
  const live = useLive('facts')
  const params = new URLSearchParams({ q: asked, type, status })
  const found = useApi<FactsAnswer>(`facts?${params}`, [live])
  const facts = found.data?.facts ?? []
  return html`
    <h1>Memory</h1>
    <form role="search" class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label class="grow">Search facts
        <input id="search" type="search" value=${q} placeholder="e.g. migrations, billing, fact-0012  (press / to come back here)" autocomplete="off"
          onInput=${(e: Event) => setQ((e.target as HTMLInputElement).value)} />
      </label>
      <label>Type
        <select value=${type} onChange=${(e: Event) => setType((e.target as HTMLSelectElement).value)}>
          <option value="">all types</option>
          ${FACT_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}
        </select>
      </label>
      <label>Status
        <select value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
          ${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
        </select>
      </label>
    </form>
    ${asked && status !== 'active' ? html`<p class="muted">Search finds active facts; other statuses are listed whole.</p>` : null}
    <${ErrorLine} error=${found.error} />
    <p class="muted" aria-live="polite" id="result-count">
      ${found.data ? countLine(found.data) : ''}
    </p>
    <ul class="results" aria-labelledby="result-count">
      ${facts.map(
        (f) => html`<li key=${f.id}>
          <a class="title" href=${href('fact', f.id)}>${highlight(f.title, asked)}</a>
          <div class="meta"><span class="mono">${f.id}</span> <${Badge} value=${f.type} /> <${Badge} value=${f.state} /> ${f.scope}${f.relevance !== undefined ? ` · relevance ${f.relevance}` : ''}</div>
          <p class="excerpt">${highlight(f.excerpt, asked)}</p>
        </li>`,
      )}
    </ul>
  `
}

/** `7 facts`, `3 facts found (2 below the relevance floor)`, or for a long listing `the newest 100 of 10000 facts`. */
function countLine(data: FactsAnswer): string {
  const n = data.facts.length
  if (data.total !== undefined && data.total > n) return `the newest ${n} of ${data.total} facts`
  return `${n} ${n === 1 ? 'fact' : 'facts'}${data.mode === 'search' ? ' found' : ''}${data.dropped ? ` (${data.dropped} below the relevance floor)` : ''}`
}
