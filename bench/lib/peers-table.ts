import type { PeerSystem } from './peers-systems.js'

/** One row of the peers table: a cell per system, and which way is better for the ratio columns. */
export interface PeerRow {
  label: string
  cells: Record<string, { text: string; value?: number } | undefined>
  /** Lower by default; `none` for rows without a ratio. */
  better?: 'lower' | 'higher' | 'none'
  note?: string
  /** false: measured once, not at each size (the concurrent writes). */
  size?: false
}

const FOUNDRY = ['Foundry fs', 'Foundry sqlite']

/**
 * A markdown table: a column per system, then Foundry's ratio (fs / SQLite) against each peer;
 * ✓ where Foundry is better on that row, ✗ where it is worse. Notes follow the table.
 */
export function peerTable(systems: PeerSystem[], rows: PeerRow[]): string {
  const peers = systems.filter((s) => !FOUNDRY.includes(s.name))
  const head = ['at this size', ...systems.map((s) => s.name), ...peers.map((p) => `Foundry ÷ ${p.name} (fs / SQLite)`)]
  const lines = rows.map((row) => {
    const ratios = peers.map((peer) => {
      const base = row.cells[peer.name]?.value
      if (row.better === 'none' || base === undefined || !Number.isFinite(base)) return ''
      return FOUNDRY.map((name) => {
        const ours = row.cells[name]?.value
        if (ours === undefined || !Number.isFinite(ours)) return 'n/a'
        if (base === 0) return ours === 0 ? '=' : row.better === 'higher' ? '✓' : '✗'
        const ratio = ours / base
        const win = row.better === 'higher' ? ratio > 1.0001 : ratio < 0.9999
        const loss = row.better === 'higher' ? ratio < 0.9999 : ratio > 1.0001
        return `${ratio >= 10 ? ratio.toFixed(0) : ratio >= 0.1 ? ratio.toFixed(2) : ratio.toPrecision(2)}×${win ? ' ✓' : loss ? ' ✗' : ''}`
      }).join(' / ')
    })
    return [row.label, ...systems.map((s) => row.cells[s.name]?.text ?? 'n/a'), ...ratios]
  })
  const table = [head, head.map(() => '---'), ...lines].map((r) => `| ${r.join(' | ')} |`).join('\n')
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.label}: ${r.note}`)
  return `${table}\n\n${notes.join('\n')}`
}
