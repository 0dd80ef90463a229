// Tokens: the project's token report, with where the tokens go and which tools are called.
import { html } from 'htm/preact'
import { BarChart } from '../chart.js'
import { ErrorLine, Loading } from '../parts.js'
import type { TokensAnswer } from '../../src/wire.js'
import { useApi, useLive } from '../state.js'

export function TokensPage() {
  const live = useLive('facts')
  const report = useApi<TokensAnswer>('tokens', [live])
  const f = report.data?.figures
  const calls = f ? Object.entries(f.events).sort((a, b) => b[1] - a[1]).map(([label, value]) => ({ label, value })) : []
  return html`
    <h1>Tokens</h1>
    <${Loading} when=${report.loading && !f} /><${ErrorLine} error=${report.error} />
    ${f
      ? html`<p class="lead">Index-first costs <strong>~${f.indexTokens}</strong> tokens a session; loading everything eagerly would cost <strong>~${f.eagerTokens}</strong> (saving ${f.savingPercent}%).</p>
        <${BarChart} title="Where the tokens are (estimated)" unit="tokens" bars=${[
          { label: 'index (always loaded)', value: f.indexTokens },
          { label: `facts (${f.facts}, on demand)`, value: f.factTokens },
          { label: `runbooks (${f.runbooks})`, value: f.runbookTokens },
          { label: `artifacts (${f.artifacts})`, value: f.artifactTokens },
        ]} />
        ${calls.length ? html`<${BarChart} title="Calls per tool (recorded events)" unit="calls" bars=${calls} />` : html`<p class="muted">No tool calls recorded yet.</p>`}
        ${f.usage?.agents.length
          ? html`<${BarChart} title="Agent runs: tokens per agent" unit="tokens" bars=${f.usage.agents.map((a) => ({ label: `${a.source} ${a.agent}`, value: a.inputTokens + a.outputTokens }))} />`
          : null}
        <h2>Accounting</h2>
        <pre tabindex="0" aria-label="Token accounting">${report.data?.accounting}</pre>`
      : null}
  `
}
