// Runbooks, contracts and the blackboard: lists, and each item read whole.
import { html } from 'htm/preact'
import { markdown } from '../markdown.js'
import { ErrorLine, Loading } from '../parts.js'
import type { ArtifactAnswer, BlackboardAnswer, ContractAnswer, ContractsAnswer, RunbookAnswer, RunbooksAnswer } from '../../src/wire.js'
import { href, useApi } from '../state.js'

export function LibraryPage() {
  const runbooks = useApi<RunbooksAnswer>('runbooks')
  const contracts = useApi<ContractsAnswer>('contracts')
  const artifacts = useApi<BlackboardAnswer>('blackboard')
  return html`
    <h1>Runbooks, contracts and the blackboard</h1>
    <section aria-labelledby="rb"><h2 id="rb">Runbooks</h2>
      <${ErrorLine} error=${runbooks.error} />
      ${runbooks.data?.length === 0 ? html`<p class="muted">No runbooks.</p>` : null}
      <ul>${runbooks.data?.map((r) => html`<li key=${r.slug}><a href=${href('runbook', r.slug)}>${r.title}</a>${r.trigger ? html` <span class="muted">trigger: ${r.trigger}</span>` : null}</li>`)}</ul>
    </section>
    <section aria-labelledby="ct"><h2 id="ct">Contracts</h2>
      <${ErrorLine} error=${contracts.error} />
      <ul class="columns">${contracts.data?.map((c) => html`<li key=${c.id}><a class="mono" href=${href('contract', c.id)}>${c.id}</a> <span class="muted">${c.origin}</span></li>`)}</ul>
    </section>
    <section aria-labelledby="bb"><h2 id="bb">Blackboard</h2>
      <${ErrorLine} error=${artifacts.error} />
      ${artifacts.data?.length === 0 ? html`<p class="muted">No artifacts.</p>` : null}
      ${artifacts.data?.length
        ? html`<table><thead><tr><th scope="col">wave</th><th scope="col">agent</th><th scope="col">contract</th><th scope="col">tokens</th><th scope="col">summary</th></tr></thead>
          <tbody>${artifacts.data.map(
            (a) => html`<tr key=${a.file}><td>${a.wave}</td><td><a href=${href('artifact', a.wave, a.agent)}>${a.agent}</a>${a.version > 1 ? ` v${a.version}` : ''}</td><td class="mono">${a.schema ?? ''}</td><td class="num">${a.tokens}</td><td>${a.summary ?? ''}</td></tr>`,
          )}</tbody></table>`
        : null}
    </section>
  `
}

export function RunbookPage({ slug }: { slug: string }) {
  const rb = useApi<RunbookAnswer>(`runbooks/${encodeURIComponent(slug)}`)
  return html`<p class="crumbs"><a href="#/library">Library</a> › runbook</p>
    <h1>${rb.data?.title ?? slug}</h1><${Loading} when=${rb.loading && !rb.data} /><${ErrorLine} error=${rb.error} />
    ${rb.data?.trigger ? html`<p class="muted">Trigger: ${rb.data.trigger}</p>` : null}
    ${rb.data ? html`<section class="body">${markdown(rb.data.body)}</section>` : null}`
}

export function ContractPage({ id }: { id: string }) {
  const c = useApi<ContractAnswer>(`contracts/${encodeURIComponent(id)}`)
  return html`<p class="crumbs"><a href="#/library">Library</a> › contract</p>
    <h1 class="mono">${id}</h1><${Loading} when=${c.loading && !c.data} /><${ErrorLine} error=${c.error} />
    ${c.data ? html`<pre tabindex="0" aria-label="JSON Schema">${JSON.stringify(c.data.schema, null, 2)}</pre>` : null}`
}

export function ArtifactPage({ wave, agent }: { wave: string; agent: string }) {
  const a = useApi<ArtifactAnswer>(`blackboard/${encodeURIComponent(wave)}/${encodeURIComponent(agent)}`)
  return html`<p class="crumbs"><a href="#/library">Library</a> › ${wave}</p>
    <h1>${agent}</h1><${Loading} when=${a.loading && !a.data} /><${ErrorLine} error=${a.error} />
    ${a.data ? html`<pre tabindex="0" aria-label="The artifact">${a.data.text}</pre>` : null}`
}
