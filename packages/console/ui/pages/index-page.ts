// Index: exactly the text an agent receives at session start, and its token cost against the budget.
import { html } from 'htm/preact'
import { Meter } from '../chart.js'
import { ErrorLine, Loading } from '../parts.js'
import type { IndexAnswer } from '../../src/wire.js'
import { useApi, useLive } from '../state.js'

export function IndexPage() {
  const live = useLive('facts')
  const index = useApi<IndexAnswer>('index', [live])
  const d = index.data
  const share = d ? Math.min(100, Math.round((d.tokens / d.budget) * 100)) : 0
  return html`
    <h1>Index</h1>
    <p>What an agent receives at session start, word for word.</p>
    <${Loading} when=${index.loading && !d} /><${ErrorLine} error=${index.error} />
    ${d
      ? html`<figure class="budget">
            <${Meter} value=${d.tokens} max=${d.budget} label=${`${d.tokens} of ${d.budget} tokens (${share}%)`} />
            <figcaption>~${d.tokens} tokens of a ${d.budget}-token budget (${share}%)</figcaption>
          </figure>
          <pre class="index-text" tabindex="0" aria-label="The index text">${d.text}</pre>`
      : null}
  `
}
