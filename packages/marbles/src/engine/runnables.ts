import { FoundryError } from '@foundry/kernel'
import { KIND } from '../define/brand.js'
import type { Definitions, Runnable } from '../define/registry.js'
import type { JournalError } from '../journal/records.js'

/** The workflow or step dispatched by `name`; NOT_FOUND naming the known ones. */
export function findRunnable(definitions: Definitions, name: string): Runnable {
  const def = definitions.runnables.get(name)
  if (!def) {
    const known = [...definitions.runnables.keys()].sort()
    throw new FoundryError(
      'NOT_FOUND',
      `No workflow or step named "${name}"${known.length ? `; known: ${known.join(', ')}` : ' (the workspace declares none)'}`,
    )
  }
  return def
}

/** Whether a run of `name` left running by a dead process is resumed in a linked run. */
export function resumable(definitions: Definitions, name: string | undefined): boolean {
  const def = definitions.runnables.get(name ?? '')
  return def?.[KIND] === 'workflow' && def.resumable
}

/** The version a workflow declares (steps have none). */
export const versionOf = (def: Runnable | undefined): string | undefined =>
  def?.[KIND] === 'workflow' ? def.version : undefined

/**
 * Why this code may not execute a run that started under `recorded` (its journal replays steps by
 * name, and a renamed step would run its side effects again); undefined when it may: the same
 * version, or one the workflow declares `compatible`.
 */
export function versionRefusal(def: Runnable, recorded: string | undefined): JournalError | undefined {
  const current = versionOf(def)
  if (recorded === current) return undefined
  if (def[KIND] === 'workflow' && recorded !== undefined && def.compatible.includes(recorded)) return undefined
  const said = (v: string | undefined) => (v === undefined ? 'no version' : `version ${v}`)
  return {
    name: 'VersionMismatch',
    message: `the run started under ${said(recorded)} of ${def.name}; this workspace declares ${said(current)}: redeploy the code it started under${recorded === undefined ? '' : `, or add "${recorded}" to the workflow's compatible versions if its journal replays the same steps`}`,
  }
}
