import { Type, type Static } from 'typebox'

/** The event kinds seed 004 lists; `.foundry/metrics/events.jsonl` holds one JSON line each. */
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
export type EventKind = (typeof EVENT_KINDS)[number]

export const EventSchema = Type.Object({
  ts: Type.String({ description: 'ISO 8601 timestamp' }),
  kind: Type.Enum([...EVENT_KINDS]),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
})
export type FoundryEvent = Static<typeof EventSchema>
