import type { Kernel } from '@foundry/kernel'
import { checkName, KIND } from './brand.js'
import { parseCron, type Cron } from '../triggers/cron.js'
import type { StepDefinition, WorkflowDefinition } from './workflow.js'

type Target = string | WorkflowDefinition | StepDefinition

export interface ScheduleOptions {
  name: string
  /** The workflow or step to dispatch: its definition or its name. */
  workflow: Target
  /** A five-field cron expression in local time (`*\/15 9-17 * * 1-5`). Give `cron` or `every`. */
  cron?: string
  /** An interval in milliseconds, or `30s`, `5m`, `2h`, `1d`. */
  every?: number | string
  /** The input each dispatch gets. */
  input?: unknown
}

export interface ScheduleDefinition {
  readonly [KIND]: 'schedule'
  readonly name: string
  readonly workflow: string
  readonly cron: Cron | undefined
  readonly everyMs: number | undefined
  readonly input: unknown
  /** The schedule as written, for listings. */
  readonly when: string
}

export interface MonitorOptions<T> {
  name: string
  workflow: Target
  /** How often `poll` runs: milliseconds or `30s`, `5m`, … */
  every: number | string
  /** Read the thing watched. A throw is logged and counts as "condition false". */
  poll(ctx: { kernel: Kernel; signal: AbortSignal }): Promise<T> | T
  /** Dispatch when this turns true (edge-triggered: once per false → true change). */
  when(value: T): boolean
  /** The dispatched run's input, from the polled value. Default: `{ value }`. */
  input?: (value: T) => unknown
}

export interface MonitorDefinition<T = unknown> {
  readonly [KIND]: 'monitor'
  readonly name: string
  readonly workflow: string
  readonly everyMs: number
  poll(ctx: { kernel: Kernel; signal: AbortSignal }): Promise<T> | T
  when(value: T): boolean
  input(value: T): unknown
}

/** Declare a schedule that `marbles serve` ticks: a cron expression or an interval. */
export function schedule(options: ScheduleOptions): ScheduleDefinition {
  const name = checkName('schedule', options.name)
  if ((options.cron === undefined) === (options.every === undefined))
    throw new TypeError(`schedule ${name}: give exactly one of cron and every`)
  return {
    [KIND]: 'schedule',
    name,
    workflow: targetName(options.workflow, name),
    cron: options.cron === undefined ? undefined : parseCron(options.cron),
    everyMs: options.every === undefined ? undefined : duration(options.every, `schedule ${name}: every`),
    input: options.input ?? {},
    when: options.cron !== undefined ? `cron ${options.cron}` : `every ${options.every}`,
  }
}

/** Declare a monitor that `marbles serve` polls: when its condition turns true, it dispatches the workflow. */
export function monitor<T>(options: MonitorOptions<T>): MonitorDefinition<T> {
  const name = checkName('monitor', options.name)
  if (typeof options.poll !== 'function' || typeof options.when !== 'function')
    throw new TypeError(`monitor ${name}: poll and when must be functions`)
  return {
    [KIND]: 'monitor',
    name,
    workflow: targetName(options.workflow, name),
    everyMs: duration(options.every, `monitor ${name}: every`),
    poll: options.poll,
    when: options.when,
    input: options.input ?? ((value: T) => ({ value })),
  }
}

function targetName(target: Target, owner: string): string {
  const name = typeof target === 'string' ? target : target?.name
  if (typeof name !== 'string' || !name)
    throw new TypeError(`${owner}: workflow must be a workflow or step definition, or its name`)
  return name
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** Milliseconds from a number or `250ms`, `30s`, `5m`, `2h`, `1d`. */
export function duration(value: number | string, what: string): number {
  const match = typeof value === 'string' ? /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value.trim()) : undefined
  const ms = typeof value === 'number' ? value : match ? Number(match[1]) * UNITS[match[2]!]! : NaN
  if (!(ms >= 1 && ms <= 2_147_483_647))
    throw new TypeError(
      `${what} must be milliseconds (1 to 2147483647) or a duration like 30s, 5m, 2h; got ${JSON.stringify(value)}`,
    )
  return Math.round(ms)
}
