// The console's shell: header, navigation, the access token, and the page the hash names.
import { html } from 'htm/preact'
import { render } from 'preact'
import { useState } from 'preact/hooks'
import { setToken, token } from './api.js'
import { DispatchPage } from './pages/dispatch.js'
import { FactPage } from './pages/fact.js'
import { HealthPage } from './pages/health.js'
import { IndexPage } from './pages/index-page.js'
import { ArtifactPage, ContractPage, LibraryPage, RunbookPage } from './pages/library.js'
import { MemoryPage } from './pages/memory.js'
import { ReviewPage } from './pages/review.js'
import { RunPage, RunsPage } from './pages/runs.js'
import { TokensPage } from './pages/tokens.js'
import type { SessionAnswer } from '../src/wire.js'
import { useApi, useRoute, type Route } from './state.js'

const NAV: Array<[string, string, string[]]> = [
  ['memory', 'Memory', ['memory', 'fact']],
  ['review', 'Review', ['review']],
  ['index', 'Index', ['index']],
  ['library', 'Library', ['library', 'runbook', 'contract', 'artifact']],
  ['tokens', 'Tokens', ['tokens']],
  ['runs', 'Runs', ['runs', 'run', 'dispatch']],
  ['health', 'Health', ['health']],
]

function Page({ route }: { route: Route }) {
  const [name, a = '', b = ''] = route.parts
  switch (name) {
    case 'memory':
      return html`<${MemoryPage} route=${route} />`
    case 'fact':
      return html`<${FactPage} id=${a} key=${a} />`
    case 'review':
      return html`<${ReviewPage} />`
    case 'index':
      return html`<${IndexPage} />`
    case 'library':
      return html`<${LibraryPage} />`
    case 'runbook':
      return html`<${RunbookPage} slug=${a} />`
    case 'contract':
      return html`<${ContractPage} id=${a} />`
    case 'artifact':
      return html`<${ArtifactPage} wave=${a} agent=${b} />`
    case 'tokens':
      return html`<${TokensPage} />`
    case 'runs':
      return html`<${RunsPage} />`
    case 'run':
      return html`<${RunPage} id=${a} key=${a} />`
    case 'dispatch':
      return html`<${DispatchPage} name=${a} />`
    case 'health':
      return html`<${HealthPage} />`
    default:
      return html`<h1>Not found</h1><p>No page ${name}. <a href="#/memory">Back to memory</a>.</p>`
  }
}

function TokenControl() {
  const [open, setOpen] = useState(false)
  const [value, setValue] = useState(token())
  const session = useApi<SessionAnswer>('session')
  const who = session.data ? `${session.data.name} (${session.data.roles.join('+')})` : session.error ? 'token needed' : '…'
  return html`<div class="token">
    <button type="button" aria-expanded=${open} aria-controls="token-form" onClick=${() => setOpen(!open)}>Access: ${who}</button>
    ${open
      ? html`<form id="token-form" class="token-form" onSubmit=${(e: Event) => (e.preventDefault(), setToken(value.trim()), setOpen(false))}>
          <label>Access token <input id="token-input" type="password" autocomplete="off" value=${value} onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} /></label>
          <button type="submit">Use</button>
          <button type="button" onClick=${() => (setValue(''), setToken(''), setOpen(false))}>Clear</button>
          <p class="muted">Kept for this tab only. A read token browses; a write token also edits and forgets; a run token dispatches and cancels runs.</p>
        </form>`
      : null}
  </div>`
}

function App() {
  const route = useRoute()
  const current = route.parts[0] ?? 'memory'
  return html`
    <a class="skip" href="#main" onClick=${(e: Event) => (e.preventDefault(), document.getElementById('main')?.focus())}>Skip to content</a>
    <header class="top">
      <span class="brand">Foundry console</span>
      <nav aria-label="Pages">
        <ul>${NAV.map(([path, label, owns]) => html`<li><a href=${`#/${path}`} aria-current=${owns.includes(current) ? 'page' : undefined}>${label}</a></li>`)}</ul>
      </nav>
      <${TokenControl} />
    </header>
    <main id="main" tabindex="-1"><${Page} route=${route} /></main>
  `
}

// `/` jumps to the search box from anywhere but a text field.
document.addEventListener('keydown', (e) => {
  const target = e.target as HTMLElement | null
  if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || target?.closest('input, textarea, select')) return
  e.preventDefault()
  if (!location.hash.startsWith('#/memory')) location.hash = '#/memory'
  requestAnimationFrame(() => document.getElementById('search')?.focus())
})

// A URL the server printed for its user carries the token once, as `#token=…`: kept for the tab, then
// dropped from the address bar (and so from history and bookmarks).
if (location.hash.startsWith('#token=')) {
  setToken(decodeURIComponent(location.hash.slice('#token='.length)))
  history.replaceState(null, '', `${location.pathname}${location.search}#/memory`)
}

const root = document.getElementById('app')
if (root) render(html`<${App} />`, root)
