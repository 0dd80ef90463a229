import { HookInputError, parseJsonObject } from './io.js'

/**
 * The payloads Claude Code sends on stdin (https://code.claude.com/docs/en/hooks). Every event
 * carries the common fields; each adds its own. Fields a hook does not use are not checked, and
 * unknown fields are ignored, so newer Claude Code versions keep working.
 */
export interface CommonInput {
  session_id: string
  transcript_path: string
  /** The session's working directory: the project is found from here. */
  cwd: string
  hook_event_name: string
}

export interface SessionStartInput extends CommonInput {
  /** `startup`, `resume`, `clear` or `compact`. */
  source?: string
}

export interface UserPromptSubmitInput extends CommonInput {
  prompt: string
}

export interface SubagentStopInput extends CommonInput {
  /** True when the subagent is already continuing because a stop hook blocked it. */
  stop_hook_active: boolean
  agent_id?: string
  agent_type?: string
  agent_transcript_path?: string
  /** The subagent's final message: what its caller would receive. */
  last_assistant_message?: string
}

export interface PreCompactInput extends CommonInput {
  /** `manual` (/compact) or `auto` (the context window is full). */
  trigger?: string
  custom_instructions?: string | null
}

export interface SessionEndInput extends CommonInput {
  /** `clear`, `logout`, `prompt_input_exit`, `other`, … */
  reason?: string
}

export interface HookInputs {
  SessionStart: SessionStartInput
  UserPromptSubmit: UserPromptSubmitInput
  SubagentStop: SubagentStopInput
  PreCompact: PreCompactInput
  SessionEnd: SessionEndInput
}
export type HookEventName = keyof HookInputs

type FieldKind = 'string' | 'boolean'
/** The fields each event needs, with their JSON type; `?` marks an optional one (checked only when present). */
const FIELDS: Record<HookEventName, Record<string, FieldKind>> = {
  SessionStart: { 'source?': 'string' },
  UserPromptSubmit: { prompt: 'string' },
  SubagentStop: {
    'stop_hook_active?': 'boolean',
    'agent_id?': 'string',
    'agent_type?': 'string',
    'last_assistant_message?': 'string',
  },
  PreCompact: { 'trigger?': 'string' },
  SessionEnd: { 'reason?': 'string' },
}
const COMMON: Record<string, FieldKind> = {
  'session_id?': 'string',
  'transcript_path?': 'string',
  'cwd?': 'string',
  'hook_event_name?': 'string',
}

/**
 * Parse stdin as the payload of `event`. Throws HookInputError naming the problem: not JSON, a
 * payload of another event (a hook wired to the wrong event in hooks.json), a field of the wrong type.
 * Absent common fields default to `''` (`cwd` to the process's directory), `stop_hook_active` to false.
 */
export function parseHookInput<E extends HookEventName>(event: E, text: string): HookInputs[E] {
  const raw = parseJsonObject(text)
  if (raw.hook_event_name !== undefined && raw.hook_event_name !== event)
    throw new HookInputError(
      `received a ${String(raw.hook_event_name)} event but this hook handles ${event}; check the event it is wired to in hooks.json`,
    )
  for (const [spec, kind] of Object.entries({ ...COMMON, ...FIELDS[event] })) {
    const optional = spec.endsWith('?')
    const field = optional ? spec.slice(0, -1) : spec
    const value = raw[field]
    if (value === undefined || value === null) {
      if (!optional) throw new HookInputError(`${event} input has no "${field}" (expected a ${kind})`)
      continue
    }
    if (typeof value !== kind)
      throw new HookInputError(
        `${event} input field "${field}" must be a ${kind}, got ${Array.isArray(value) ? 'array' : typeof value}`,
      )
  }
  return {
    ...raw,
    session_id: (raw.session_id as string | undefined) ?? '',
    transcript_path: (raw.transcript_path as string | undefined) ?? '',
    cwd: (raw.cwd as string | undefined) || process.cwd(),
    hook_event_name: event,
    ...(event === 'SubagentStop' && { stop_hook_active: raw.stop_hook_active === true }),
  } as unknown as HookInputs[E]
}
