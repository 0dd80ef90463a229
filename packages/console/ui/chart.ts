// Charts as plain SVG: horizontal bars with their values written beside them, and a text
// alternative (a table for screen readers). SVG attributes, not inline styles, so the strict CSP holds.
import { html } from 'htm/preact'

export interface Bar {
  label: string
  value: number
}

/** Bars in the order given, scaled to the largest; `unit` (a plural, `calls`) follows each value. */
export function BarChart({ title, bars, unit }: { title: string; bars: Bar[]; unit: string }) {
  const max = Math.max(1, ...bars.map((b) => b.value))
  const row = 26
  const labelWidth = 190
  const width = 640
  const barSpace = width - labelWidth - 110
  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    <svg viewBox=${`0 0 ${width} ${Math.max(row, bars.length * row)}`} role="img" aria-label=${`${title}: ${bars.map((b) => `${b.label} ${b.value} ${unit}`).join(', ')}`}>
      ${bars.map(
        (b, i) => html`<g key=${b.label} transform=${`translate(0 ${i * row})`}>
          <text x=${labelWidth - 8} y="17" text-anchor="end" class="chart-label">${b.label}</text>
          <rect x=${labelWidth} y="4" height="18" rx="3" width=${Math.max(1, (b.value / max) * barSpace)} class="chart-bar"></rect>
          <text x=${labelWidth + Math.max(1, (b.value / max) * barSpace) + 6} y="17" class="chart-value">${b.value.toLocaleString('en')} ${b.value === 1 ? unit.replace(/s$/, '') : unit}</text>
        </g>`,
      )}
    </svg>
  </figure>`
}

/** One value against a limit, as a bar (the index against its budget). */
export function Meter({ value, max, label }: { value: number; max: number; label: string }) {
  const share = Math.min(1, value / Math.max(1, max))
  return html`<svg class="meter" viewBox="0 0 400 16" role="img" aria-label=${label} preserveAspectRatio="none">
    <rect x="0" y="0" width="400" height="16" rx="4" class="meter-track"></rect>
    <rect x="0" y="0" width=${Math.max(2, share * 400)} height="16" rx="4" class=${share > 0.9 ? 'meter-fill warn' : 'meter-fill'}></rect>
  </svg>`
}
