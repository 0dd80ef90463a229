// A fact: its body, its metadata, its supersede chain as a timeline; edit and forget (write token).
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { ApiError, call } from '../api.js'
import { markdown } from '../markdown.js'
import { Badge, ErrorLine, Loading, when } from '../parts.js'
import type { Fact } from '@foundry/kernel'
import type { EditAnswer, FactAnswer } from '../../src/wire.js'
import { href, useApi, useLive } from '../state.js'
import { FACT_TYPES } from './memory.js'

export function FactPage({ id }: { id: string }) {
  const live = useLive('facts')
  const page = useApi<FactAnswer>(`facts/${encodeURIComponent(id)}`, [live])
  const [mode, setMode] = useState<'view' | 'edit' | 'forget'>('view')
  if (!page.data) return html`<h1>${id}</h1><${Loading} when=${page.loading} /><${ErrorLine} error=${page.error} />`
  const { fact, state, chain } = page.data
  const link = (target: string | undefined) => (target ? html`<a href=${href('fact', target)}>${target}</a>` : null)
  return html`
    <p class="crumbs"><a href="#/memory">Memory</a> › <span class="mono">${fact.id}</span></p>
    <h1 id="fact-title">${fact.title}</h1>
    <p><${Badge} value=${state} /> <${Badge} value=${fact.type} /> <span class="muted">${fact.scope}</span></p>
    <${ErrorLine} error=${page.error} />
    <section aria-labelledby="fact-title" class="body">${markdown(fact.body)}</section>
    <h2>Details</h2>
    <dl class="details">
      <dt>id</dt><dd class="mono">${fact.id}</dd>
      <dt>confidence</dt><dd>${fact.confidence}</dd>
      <dt>source</dt><dd>${fact.source}</dd>
      <dt>author</dt><dd>${fact.author ?? 'not recorded'}</dd>
      <dt>created</dt><dd>${when(fact.created)}</dd>
      ${fact.tags.length ? html`<dt>tags</dt><dd>${fact.tags.join(', ')}</dd>` : null}
      ${fact.expires ? html`<dt>expires</dt><dd>${fact.expires}</dd>` : null}
      ${fact.supersedes ? html`<dt>supersedes</dt><dd>${link(fact.supersedes)}</dd>` : null}
      ${fact.supersededBy ? html`<dt>superseded by</dt><dd>${link(fact.supersededBy)}</dd>` : null}
      ${fact.forgotten ? html`<dt>forgotten</dt><dd>${when(fact.forgotten)}: ${fact.forgottenReason ?? ''}</dd>` : null}
    </dl>
    <h2>History</h2>
    <ol class="timeline" aria-label="Supersede chain, oldest first">
      ${chain.map(
        (e) => html`<li key=${e.id} aria-current=${e.id === fact.id ? 'step' : undefined} class=${e.id === fact.id ? 'current' : ''}>
          <span class="when">${when(e.created).slice(0, 10)}</span>
          ${e.id === fact.id ? html`<strong class="mono">${e.id}</strong>` : html`<a class="mono" href=${href('fact', e.id)}>${e.id}</a>`}
          <${Badge} value=${e.state} /> ${e.title}${e.author ? html` <span class="muted">by ${e.author}</span>` : null}
        </li>`,
      )}
    </ol>
    ${state === 'active'
      ? html`<div class="actions">
          <button type="button" onClick=${() => setMode(mode === 'edit' ? 'view' : 'edit')} aria-expanded=${mode === 'edit'}>Edit</button>
          <button type="button" class="danger" onClick=${() => setMode(mode === 'forget' ? 'view' : 'forget')} aria-expanded=${mode === 'forget'}>Forget…</button>
        </div>
        ${mode === 'edit' ? html`<${EditForm} fact=${fact} />` : null}
        ${mode === 'forget' ? html`<${ForgetForm} id=${fact.id} done=${() => setMode('view')} />` : null}`
      : null}
  `
}

function ForgetForm({ id, done }: { id: string; done: () => void }) {
  const [reason, setReason] = useState('')
  const [error, setError] = useState<ApiError | undefined>()
  const submit = async (e: Event) => {
    e.preventDefault()
    try {
      await call(`facts/${encodeURIComponent(id)}/forget`, { reason })
      setError(undefined)
      done()
    } catch (err) {
      setError(err as ApiError)
    }
  }
  return html`<form class="panel" onSubmit=${submit} aria-label="Forget this fact">
    <label>Why is it forgotten?
      <textarea id="forget-reason" required maxlength="500" rows="2" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLTextAreaElement).value)}></textarea>
    </label>
    <p class="muted">The fact leaves the index and search, and stays in storage with this reason.</p>
    <${ErrorLine} error=${error} />
    <button type="submit" class="danger">Forget ${id}</button>
  </form>`
}

function EditForm({ fact }: { fact: Fact }) {
  const [draft, setDraft] = useState({ title: fact.title, body: fact.body, type: fact.type, tags: fact.tags.join(', ') })
  const [error, setError] = useState<ApiError | undefined>()
  const set = (key: keyof typeof draft) => (e: Event) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value })
  const submit = async (e: Event) => {
    e.preventDefault()
    try {
      const tags = draft.tags.split(',').map((t) => t.trim()).filter(Boolean)
      const result = await call<EditAnswer>(`facts/${encodeURIComponent(fact.id)}/edit`, { title: draft.title, body: draft.body, type: draft.type, tags })
      location.hash = href('fact', result.id)
    } catch (err) {
      setError(err as ApiError)
    }
  }
  return html`<form class="panel" onSubmit=${submit} aria-label="Edit this fact">
    <p class="muted">Saving writes a new fact that supersedes ${fact.id}; the old one stays in its history.</p>
    <label>Title <input id="edit-title" required maxlength="80" value=${draft.title} onInput=${set('title')} /></label>
    <label>Body <textarea id="edit-body" required rows="6" value=${draft.body} onInput=${set('body')}></textarea></label>
    <label>Type <select value=${draft.type} onChange=${set('type')}>${FACT_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}</select></label>
    <label>Tags (comma-separated) <input value=${draft.tags} onInput=${set('tags')} /></label>
    <${ErrorLine} error=${error} />
    <button type="submit">Save as a new fact</button>
  </form>`
}
