// Pieces every page uses: an error line, a loading line, a state badge, dates.
import { html } from 'htm/preact'
import type { ApiError } from './api.js'

export function ErrorLine({ error }: { error: ApiError | Error | undefined }) {
  if (!error) return null
  return html`<p class="error" role="alert">${error.message}</p>`
}

export function Loading({ when }: { when: boolean }) {
  return when ? html`<p class="muted" aria-live="polite">Loading…</p>` : null
}

export function Badge({ value }: { value: string }) {
  return html`<span class=${`badge badge-${value.replace(/[^a-z_-]/gi, '')}`}>${value}</span>`
}

/** `2026-12-01T10:00:00Z` → `2026-12-01 10:00`. */
export function when(value: string | number | undefined): string {
  if (value === undefined) return ''
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? String(value) : d.toISOString().slice(0, 16).replace('T', ' ')
}
