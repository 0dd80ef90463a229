// Dispatch: pick a workflow, fill the form its input schema makes, start a run and follow it.
import { html } from 'htm/preact'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { ApiError, call } from '../api.js'
import { ErrorLine, Loading } from '../parts.js'
import { initialValues, inputOf, SchemaFields, type FormValues } from '../schema-form.js'
import type { RunStartedAnswer, WorkflowsAnswer } from '../../src/wire.js'
import { href, useApi } from '../state.js'

/** A fresh key for one submission of the form: a second click does not start a second run. */
function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`
}

export function DispatchPage({ name }: { name: string }) {
  const list = useApi<WorkflowsAnswer>('workflows')
  const workflows = list.data?.workflows ?? []
  const chosen = workflows.find((w) => w.name === name) ?? (name ? undefined : workflows[0])
  const [values, setValues] = useState<FormValues>({})
  const [error, setError] = useState<Error | undefined>()
  const [busy, setBusy] = useState(false)
  const key = useMemo(newKey, [chosen?.name])
  useEffect(() => {
    setValues(chosen ? initialValues(chosen.inputSchema) : {})
    setError(undefined)
  }, [chosen?.name])

  async function submit(e: Event) {
    e.preventDefault()
    if (!chosen) return
    setError(undefined)
    setBusy(true)
    try {
      const input = inputOf(chosen.inputSchema, values)
      const run = await call<RunStartedAnswer>('runs', { name: chosen.name, input, idempotencyKey: key })
      location.hash = href('run', run.runId)
    } catch (err) {
      setError(err instanceof ApiError || err instanceof Error ? err : new Error(String(err)))
    } finally {
      setBusy(false)
    }
  }

  return html`
    <p class="crumbs"><a href="#/runs">Runs</a> › dispatch</p>
    <h1>Dispatch a workflow</h1>
    <${Loading} when=${list.loading && !list.data} /><${ErrorLine} error=${list.error} />
    ${list.data && !workflows.length ? html`<p class="muted">The Marbles workspace declares no workflow.</p>` : null}
    ${workflows.length
      ? html`<label for="workflow">Workflow
          <select id="workflow" value=${chosen?.name ?? ''} onChange=${(e: Event) => (location.hash = href('dispatch', (e.target as HTMLSelectElement).value))}>
            ${name && !chosen ? html`<option value=${name}>${name} (unknown)</option>` : null}
            ${workflows.map((w) => html`<option value=${w.name}>${w.name}</option>`)}
          </select></label>`
      : null}
    ${name && list.data && !chosen ? html`<p class="error" role="alert">No workflow named ${name}; pick one above.</p>` : null}
    ${chosen
      ? html`<form class="panel dispatch" onSubmit=${submit} aria-describedby="workflow-about">
          <p id="workflow-about" class="muted">${chosen.description ?? `Starts ${chosen.name}.`} Fields marked * are required.</p>
          <${SchemaFields} schema=${chosen.inputSchema} values=${values} set=${(path: string, value: string | boolean) => setValues((old) => ({ ...old, [path]: value }))} />
          <${ErrorLine} error=${error} />
          <div class="actions"><button type="submit" disabled=${busy}>${busy ? 'Dispatching…' : 'Dispatch'}</button></div>
        </form>`
      : null}
  `
}
