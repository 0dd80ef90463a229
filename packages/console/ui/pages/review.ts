// Review: the facts proposed for memory (captured from sessions), each accepted, rejected or edited (write token).
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { ApiError, call } from '../api.js'
import { markdown } from '../markdown.js'
import { Badge, ErrorLine, Loading, when } from '../parts.js'
import type { Proposal } from '@foundry/kernel'
import type { ReviewAnswer, ReviewDecisionAnswer } from '../../src/wire.js'
import { href, useApi, useLive } from '../state.js'
import { FACT_TYPES } from './memory.js'

export function ReviewPage() {
  const live = useLive('facts')
  const [done, setDone] = useState<Array<{ key: string; text: string; id?: string }>>([])
  const queue = useApi<ReviewAnswer>('review', [live, done.length])
  const decided = (answer: ReviewDecisionAnswer) => setDone([{ key: `${answer.proposal}-${done.length}`, text: answer.text.split('\n')[0] ?? '', ...(answer.id && { id: answer.id }) }, ...done])
  return html`
    <h1>Review</h1>
    <p class="muted">Facts proposed for memory wait here, out of search and the index, until accepted (stored as any write is: deduplicated, superseding the same statement), rejected or edited.</p>
    <${Loading} when=${queue.loading && !queue.data} />
    <${ErrorLine} error=${queue.error} />
    ${done.length
      ? html`<ul class="decisions" aria-label="Done in this visit" aria-live="polite">
          ${done.map((d) => html`<li key=${d.key}>${d.text}${d.id ? html` · <a href=${href('fact', d.id)}>${d.id}</a>` : null}</li>`)}
        </ul>`
      : null}
    ${queue.data && !queue.data.proposals.length ? html`<p id="review-empty">No proposals wait for review.</p>` : null}
    ${queue.data?.proposals.map((p) => html`<${ProposalCard} key=${p.id} proposal=${p} decided=${decided} />`)}
  `
}

function ProposalCard({ proposal, decided }: { proposal: Proposal; decided: (answer: ReviewDecisionAnswer) => void }) {
  const [mode, setMode] = useState<'view' | 'edit' | 'reject'>('view')
  const [error, setError] = useState<ApiError | undefined>()
  const f = proposal.fact
  const act = async (action: string, body: unknown = {}) => {
    try {
      const answer = await call<ReviewDecisionAnswer>(`review/${encodeURIComponent(proposal.id)}/${action}`, body)
      setError(undefined)
      setMode('view')
      decided(answer)
    } catch (err) {
      setError(err as ApiError)
    }
  }
  return html`<article class="panel proposal" aria-labelledby=${`${proposal.id}-title`}>
    <h2 id=${`${proposal.id}-title`}>${f.title}</h2>
    <p><span class="mono">${proposal.id}</span> <${Badge} value=${f.type} /> <span class="muted">${f.scope ?? 'project'} · confidence ${f.confidence ?? 'medium'}${proposal.author ? ` · by ${proposal.author}` : ''}${proposal.origin ? ` · from ${proposal.origin}` : ''} · ${when(proposal.created)}</span></p>
    <section class="body">${markdown(f.body)}</section>
    <${ErrorLine} error=${error} />
    <div class="actions">
      <button type="button" onClick=${() => act('accept')}>Accept</button>
      <button type="button" onClick=${() => setMode(mode === 'edit' ? 'view' : 'edit')} aria-expanded=${mode === 'edit'}>Edit</button>
      <button type="button" class="danger" onClick=${() => setMode(mode === 'reject' ? 'view' : 'reject')} aria-expanded=${mode === 'reject'}>Reject…</button>
    </div>
    ${mode === 'edit' ? html`<${EditProposal} proposal=${proposal} save=${(changes: object) => act('edit', changes)} />` : null}
    ${mode === 'reject' ? html`<${RejectProposal} id=${proposal.id} reject=${(reason: string) => act('reject', reason ? { reason } : {})} />` : null}
  </article>`
}

function RejectProposal({ id, reject }: { id: string; reject: (reason: string) => void }) {
  const [reason, setReason] = useState('')
  return html`<form class="panel" aria-label=${`Reject ${id}`} onSubmit=${(e: Event) => (e.preventDefault(), reject(reason.trim()))}>
    <label>Why (optional)
      <textarea class="reject-reason" maxlength="500" rows="2" value=${reason} onInput=${(e: Event) => setReason((e.target as HTMLTextAreaElement).value)}></textarea>
    </label>
    <button type="submit" class="danger">Reject ${id}</button>
  </form>`
}

function EditProposal({ proposal, save }: { proposal: Proposal; save: (changes: object) => void }) {
  const f = proposal.fact
  const [draft, setDraft] = useState({ title: f.title, body: f.body, type: f.type as string, tags: (f.tags ?? []).join(', ') })
  const set = (key: keyof typeof draft) => (e: Event) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value })
  const submit = (e: Event) => {
    e.preventDefault()
    save({ title: draft.title, body: draft.body, type: draft.type, tags: draft.tags.split(',').map((t) => t.trim()).filter(Boolean) })
  }
  return html`<form class="panel" aria-label=${`Edit ${proposal.id}`} onSubmit=${submit}>
    <p class="muted">The proposal changes and stays in the queue; accept it to store it.</p>
    <label>Title <input class="edit-title" required maxlength="80" value=${draft.title} onInput=${set('title')} /></label>
    <label>Body <textarea class="edit-body" required rows="5" value=${draft.body} onInput=${set('body')}></textarea></label>
    <label>Type <select value=${draft.type} onChange=${set('type')}>${FACT_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}</select></label>
    <label>Tags (comma-separated) <input value=${draft.tags} onInput=${set('tags')} /></label>
    <button type="submit">Save the proposal</button>
  </form>`
}
