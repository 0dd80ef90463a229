// A run's actions, when the console runs workflows: cancel one still going, re-run one that ended (a run token).
import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import { ApiError, call } from '../api.js'
import { ErrorLine } from '../parts.js'
import type { CancelAnswer, RunStartedAnswer, RunSummary, SessionAnswer } from '../../src/wire.js'
import { href, useApi } from '../state.js'

const ENDED = ['complete', 'failed', 'cancelled']

export function RunButtons({ run }: { run: RunSummary }) {
  const session = useApi<SessionAnswer>('session')
  const [error, setError] = useState<ApiError | undefined>()
  const [busy, setBusy] = useState(false)
  const [asked, setAsked] = useState(false)
  if (!session.data?.runActions) return null
  const ended = ENDED.includes(run.status)
  const act = async (what: () => Promise<void>) => {
    setError(undefined)
    setBusy(true)
    try {
      await what()
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'NETWORK', String(err)))
    } finally {
      setBusy(false)
    }
  }
  const path = `runs/${encodeURIComponent(run.id)}`
  const cancel = () => act(async () => void (await call<CancelAnswer>(`${path}/cancel`, {}), setAsked(false)))
  const rerun = () =>
    act(async () => {
      const next = await call<RunStartedAnswer>(`${path}/rerun`, {})
      location.hash = href('run', next.runId)
    })
  return html`<div class="actions run-actions">
      ${ended
        ? html`<button type="button" disabled=${busy} onClick=${rerun}>Re-run</button>`
        : asked
          ? html`<span>Cancel this run?</span>
              <button type="button" class="danger" disabled=${busy} onClick=${cancel}>Yes, cancel the run</button>
              <button type="button" onClick=${() => setAsked(false)}>Keep it running</button>`
          : html`<button type="button" class="danger" disabled=${run.status === 'cancel_requested'} onClick=${() => setAsked(true)}>Cancel run…</button>`}
    </div>
    <${ErrorLine} error=${error} />`
}
