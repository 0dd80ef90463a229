import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Figure } from './table.js'

export interface BenchContext {
  /** The evaluation data folder (`--data`), never copied into the project. */
  data: string
  /** Smaller sizes and fewer samples: the CI smoke run. */
  quick: boolean
  /** `--before DIR`: a checkout of an earlier build (`npm run setup` done) that suites comparing builds measure beside this one. */
  before?: string
  /** `--servers`, `--clients`, `--seconds`: the team suite's shape, when given. */
  team?: { servers?: number; clients?: number; seconds?: number }
  /** A scratch folder for stores, removed afterwards. */
  scratch: string
  report(figure: Figure): void
  log(line: string): void
}

export interface Suite {
  name: string
  /** What the suite measures, one line. */
  about: string
  run(ctx: BenchContext): Promise<void>
}

export function requireData(ctx: BenchContext, relative: string): string {
  const path = resolve(ctx.data, relative)
  if (!existsSync(path))
    throw new Error(
      `Benchmark data not found: ${path}. Point --data at the eval-data folder (default ../shared/eval-data).`,
    )
  return path
}
