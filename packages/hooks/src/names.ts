import type { HookEventName } from './input.js'

/** `foundry-hook <name>` and the Claude Code event each one handles. */
export const HOOK_EVENTS = {
  'session-start': 'SessionStart',
  'prompt-context': 'UserPromptSubmit',
  'subagent-firewall': 'SubagentStop',
  precompact: 'PreCompact',
  'session-end': 'SessionEnd',
} as const satisfies Record<string, HookEventName>

export type HookName = keyof typeof HOOK_EVENTS
export const HOOK_NAMES = Object.keys(HOOK_EVENTS) as HookName[]

export function isHookName(name: string): name is HookName {
  return Object.hasOwn(HOOK_EVENTS, name)
}

/**
 * The hooks a running hook server may answer (socket.ts): those on the path of every prompt or
 * session, which only read memory. The others write (the firewall's artifact, events) and run rarely,
 * so they always run in their own process.
 */
export const SERVED_HOOKS: ReadonlySet<HookName> = new Set<HookName>(['session-start', 'prompt-context'])
