import { kindOf } from './brand.js'
import type { AgentDefinition } from './agent.js'
import type { MonitorDefinition, ScheduleDefinition } from './triggers.js'
import type { StepDefinition, WorkflowDefinition } from './workflow.js'

export type Runnable = WorkflowDefinition | StepDefinition
export type Definition = Runnable | AgentDefinition | ScheduleDefinition | MonitorDefinition

/** Everything a workspace declares, by name, and the file that declared each. */
export interface Definitions {
  /** Workflows and steps: what `dispatch` accepts. */
  runnables: ReadonlyMap<string, Runnable>
  agents: ReadonlyMap<string, AgentDefinition>
  schedules: ReadonlyMap<string, ScheduleDefinition>
  monitors: ReadonlyMap<string, MonitorDefinition>
  /** Where each definition came from (`<kind> <name>` → file), for messages. */
  origins: ReadonlyMap<string, string>
}

/**
 * Collect the definitions among values (a module's exports, arrays of them); a name declared twice
 * of the same family is an error naming both places. Schedules and monitors must name a known workflow.
 */
export function collectDefinitions(sources: Iterable<{ origin: string; values: Iterable<unknown> }>): Definitions {
  const runnables = new Map<string, Runnable>()
  const agents = new Map<string, AgentDefinition>()
  const schedules = new Map<string, ScheduleDefinition>()
  const monitors = new Map<string, MonitorDefinition>()
  const origins = new Map<string, string>()
  const seen = new Set<unknown>()
  const add = (value: unknown, origin: string) => {
    if (Array.isArray(value)) return value.forEach((v) => add(v, origin))
    const kind = kindOf(value)
    if (!kind || seen.has(value)) return
    seen.add(value)
    const def = value as Definition
    const family = kind === 'workflow' || kind === 'step' ? 'workflow' : kind
    const key = `${family} ${def.name}`
    const before = origins.get(key)
    if (before !== undefined) throw new Error(`${kind} "${def.name}" is declared twice: in ${before} and in ${origin}`)
    origins.set(key, origin)
    if (family === 'workflow') runnables.set(def.name, def as Runnable)
    else if (kind === 'agent') agents.set(def.name, def as AgentDefinition)
    else if (kind === 'schedule') schedules.set(def.name, def as ScheduleDefinition)
    else monitors.set(def.name, def as MonitorDefinition)
  }
  for (const { origin, values } of sources) for (const value of values) add(value, origin)
  for (const trigger of [...schedules.values(), ...monitors.values()])
    if (!runnables.has(trigger.workflow))
      throw new Error(
        `${kindOf(trigger)} "${trigger.name}" (${origins.get(`${kindOf(trigger)} ${trigger.name}`)}) names workflow "${trigger.workflow}", which no module declares`,
      )
  return { runnables, agents, schedules, monitors, origins }
}

/** Definitions from values in code (tests, embedding): `defineWorkspace(build, nightly)`. */
export function defineWorkspace(...values: unknown[]): Definitions {
  return collectDefinitions([{ origin: 'code', values }])
}
