/** One figure of the benchmark table. `baseline` is measured in the same run; `ratio` is value / baseline. */
export interface Figure {
  suite: string
  figure: string
  value: string
  baseline?: string
  ratio?: number
  target?: string
  /** Whether the target is met; undefined when there is no target. */
  met?: boolean
  /** The machine's 1-minute load average when the figure was reported (set by the runner): a busy machine inflates times. */
  load?: number
}

export function renderTable(figures: Figure[]): string {
  const rows = figures.map((f) => [
    f.suite,
    f.figure,
    f.value,
    f.baseline ?? '',
    f.ratio === undefined ? '' : `${f.ratio.toFixed(2)}×`,
    f.target ? `${f.target} ${f.met === undefined ? '' : f.met ? '✓' : '✗'}`.trim() : '',
    f.load === undefined ? '' : f.load.toFixed(1),
  ])
  const head = ['suite', 'figure', 'value', 'baseline (same run)', 'ratio', 'target', 'load']
  return [head, head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n')
}
