// Health: what the project runs on, how many of everything it holds, and the doctor on request.
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { ApiError, call } from '../api.js'
import { ErrorLine, Loading } from '../parts.js'
import type { DoctorAnswer, HealthAnswer } from '../../src/wire.js'
import { useApi, useLive } from '../state.js'

export function HealthPage() {
  const live = useLive('facts')
  const health = useApi<HealthAnswer>('health', [live])
  const [doctor, setDoctor] = useState<DoctorAnswer | undefined>()
  const [error, setError] = useState<ApiError | undefined>()
  const [running, setRunning] = useState(false)
  const h = health.data
  const runDoctor = async () => {
    setRunning(true)
    try {
      setDoctor(await call<DoctorAnswer>('doctor'))
      setError(undefined)
    } catch (err) {
      setError(err as ApiError)
    } finally {
      setRunning(false)
    }
  }
  return html`
    <h1>Health</h1>
    <${Loading} when=${health.loading && !h} /><${ErrorLine} error=${health.error} />
    ${h
      ? html`<dl class="details">
          <dt>storage</dt><dd>${h.storage}</dd>
          <dt>retrieval</dt><dd>${h.retrieval}</dd>
          <dt>live updates</dt><dd>${h.live}</dd>
          <dt>facts</dt><dd>${Object.entries(h.facts).map(([k, v]) => `${v} ${k}`).join(', ')}</dd>
          <dt>runbooks</dt><dd>${h.runbooks}</dd>
          <dt>contracts</dt><dd>${h.contracts}</dd>
          <dt>artifacts</dt><dd>${h.artifacts}</dd>
          <dt>Marbles runs</dt><dd>${h.runs}</dd>
        </dl>`
      : null}
    <h2>Doctor</h2>
    <p><button type="button" onClick=${runDoctor} disabled=${running}>${running ? 'Checking…' : 'Run the checks'}</button> <span class="muted">Reports only; repairs are foundry doctor --fix.</span></p>
    <${ErrorLine} error=${error} />
    ${doctor
      ? html`<p>${doctor.healthy ? 'Healthy.' : 'Needs attention.'}</p>
        <ul>${doctor.findings.map((f) => html`<li><strong>${f.status}</strong> ${f.check}: ${f.message}</li>`)}</ul>`
      : null}
  `
}
