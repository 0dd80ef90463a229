import type { Kernel } from '@foundry/kernel'

/** Token usage and cost of one agent run, as its harness reported it (absent figures: not reported). */
export interface AgentUsage {
  inputTokens: number
  outputTokens: number
  cacheReadTokens?: number
  cacheWriteTokens?: number
  /** US dollars, when the harness reports a cost (Claude Code's `total_cost_usd`, pi's `cost.total`). */
  costUsd?: number
}

/** What a harness is asked to do: one prompt, in one folder, maybe continuing a session. */
export interface AgentRequest {
  /** The whole prompt: the memory index, then the task. */
  prompt: string
  /** The agent's instructions (a system prompt where the harness takes one). */
  instructions: string
  /** The model id; undefined: the harness's own default. */
  model: string | undefined
  /** Absolute, inside the workspace root (checked at dispatch). */
  cwd: string
  /** Checked against the harness's `maxTurns` before the run starts. */
  maxTurns: number | undefined
  /** Auto-compaction on or off for this run; undefined: the harness's own default. Only harnesses with a `compaction` setting read it. */
  compaction: boolean | undefined
  /** The harness's own id of the conversation to continue (Claude Code's session, Codex's thread, …). */
  resume: string | undefined
  /** A new conversation's id chosen by Marbles, for harnesses that accept one (`sessionIds: 'chosen'`). */
  newSessionId: string
  /** Aborted on cancellation, timeout and shutdown: the harness stops, and its child is killed after `graceMs`. */
  signal: AbortSignal
  /** Each line the agent prints (stdout, stderr), for the run's journal. */
  output(stream: 'stdout' | 'stderr', line: string): void
  /** The project's kernel, for harnesses that give the model Foundry's calls as tools. */
  kernel: Kernel
  /** `foundry mcp` for the project, as an MCP server entry (`{ command, args, env }`); undefined when unavailable. */
  foundryMcp: { command: string; args: string[]; env: Record<string, string> } | undefined
}

/** What a harness returns when the agent finished; a failure throws (`HarnessError`). */
export interface AgentResult {
  /** The agent's final text. */
  text: string
  /** The harness's own id of the conversation (to continue it). */
  sessionId: string | undefined
  /** The model that answered, when the harness says. */
  model: string | undefined
  usage: AgentUsage
  turns: number | undefined
}

/** One way to run an agent: a local CLI (Claude Code, Codex, pi) or a network model through the AI SDK. */
export interface Harness {
  /** The provider name dispatches use (`claude-code`, `codex`, `pi`, `anthropic`, `mock`, …). */
  readonly name: string
  /**
   * How `maxTurns` is enforced: `native` (the harness's own limit, up to `maxTurnsLimit`), `steps`
   * (an SDK step limit), or `rejected` (the harness cannot enforce it: a dispatch naming it is refused).
   */
  readonly maxTurns: 'native' | 'steps' | 'rejected'
  readonly maxTurnsLimit?: number
  /**
   * The setting a dispatch's `compaction` is forwarded to (shown by `list_config`); absent when the
   * harness has no per-run compaction setting: the field is then ignored, with a journal line saying so.
   */
  readonly compaction?: string
  /** Run the agent to its end. Throws `HarnessError` on a failed run, the signal's reason when aborted. */
  run(request: AgentRequest): Promise<AgentResult>
}

/** An agent run that failed inside its harness: an error result, a crash, max turns. */
export class HarnessError extends Error {
  override name = 'HarnessError'
  constructor(
    message: string,
    /** What the harness did report before failing (usage to record, the session to continue). */
    readonly partial: Partial<AgentResult> = {},
  ) {
    super(message)
  }
}

export const emptyUsage = (): AgentUsage => ({ inputTokens: 0, outputTokens: 0 })
