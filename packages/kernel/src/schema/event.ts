import type { Static } from 'typebox'
import { Type } from './typebox.js'
import { lazyObject } from './lazy.js'

/**
 * The kernel's event kinds: the ones seed 004 lists, then one per operation that has no seed kind.
 * Kinds are open: a consumer records its own as `<consumer>.<kind>` (`marbles.run_started`,
 * `hooks.prompt_context`), and every kind is kept and read back.
 */
export const EVENT_KINDS = [
  'memory_search',
  'memory_write',
  'blackboard_write',
  'contract_valid',
  'contract_violation',
  'gate_blocked',
  'gate_escalated',
  'gate_override_used',
  'subagent_return',
  'session_end',
] as const
/** A kind the kernel records. */
export type KernelEventKind = (typeof EVENT_KINDS)[number]
/** Any event kind: the kernel's, or a consumer's `<consumer>.<kind>`. */
export type EventKind = KernelEventKind | (string & {})

/** An event kind: lowercase words joined by `_`, optionally namespaced by dots (`marbles.run_started`). */
export const EVENT_KIND_PATTERN = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$'

export const EventSchema = lazyObject(() =>
  Type.Object({
    ts: Type.String({ description: 'ISO 8601 timestamp' }),
    // No length or pattern limit on read: an event that was stored is read back, whatever its kind.
    kind: Type.String({
      minLength: 1,
      description: 'The kernel\'s kinds (EVENT_KINDS) or a consumer\'s "<consumer>.<kind>"',
    }),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
)
export type FoundryEvent = Static<typeof EventSchema>
