import { HarnessError, emptyUsage, type AgentRequest, type AgentResult, type Harness } from './types.js'
import { privateMcpConfig } from './mcp-config.js'
import { num } from './process.js'
import { runStreamingCli, tail, type CliHarnessOptions } from './stream-cli.js'

/** Claude Code accepts at most this many turns from Marbles. */
export const CLAUDE_MAX_TURNS = 100

/**
 * Claude Code headless: `claude -p --output-format stream-json --verbose`, one JSON object a line:
 * `system` (subtype `init`: session_id, model, tools, mcp_servers), `assistant` and `user` messages,
 * then one `result` (subtype `success`, `error_max_turns`, `error_during_execution`; is_error,
 * session_id, num_turns, usage, total_cost_usd). The project's `foundry mcp` is in its `--mcp-config`,
 * a private file for the length of the run (its environment may hold a database URL).
 */
export function claudeCodeHarness(options: CliHarnessOptions = {}): Harness {
  return {
    name: 'claude-code',
    maxTurns: 'native',
    maxTurnsLimit: CLAUDE_MAX_TURNS,
    compaction: 'autoCompactEnabled (--settings)',
    async run(request: AgentRequest): Promise<AgentResult> {
      const args = ['-p', request.prompt, '--output-format', 'stream-json', '--verbose']
      if (request.instructions) args.push('--append-system-prompt', request.instructions)
      if (request.model) args.push('--model', request.model)
      if (request.maxTurns !== undefined) args.push('--max-turns', String(request.maxTurns))
      // `autoCompactEnabled` is Claude Code's auto-compaction switch, a settings key (code.claude.com/docs/en/settings);
      // `--settings <file-or-json>` merges settings for this run only, leaving the user's files alone.
      if (request.compaction !== undefined)
        args.push('--settings', JSON.stringify({ autoCompactEnabled: request.compaction }))
      if (request.resume) args.push('--resume', request.resume)
      else args.push('--session-id', request.newSessionId)
      const mcpConfig = request.foundryMcp && (await privateMcpConfig({ foundry: request.foundryMcp }))
      if (mcpConfig) args.push('--mcp-config', mcpConfig.path)
      try {
        return await runClaude(request, options, args)
      } finally {
        await mcpConfig?.remove()
      }
    },
  }
}

async function runClaude(request: AgentRequest, options: CliHarnessOptions, args: string[]): Promise<AgentResult> {
  let sessionId: string | undefined
  let model: string | undefined
  let result: Record<string, unknown> | undefined
  let lastText = ''
  const exit = await runStreamingCli(request, options, 'claude', args, (event) => {
    if (typeof event.session_id === 'string') sessionId = event.session_id
    if (event.type === 'system' && event.subtype === 'init' && typeof event.model === 'string') model = event.model
    else if (event.type === 'assistant') {
      const content =
        (event.message as { content?: Array<{ type?: string; text?: string }> } | undefined)?.content ?? []
      const text = content
        .filter((c) => c.type === 'text' && typeof c.text === 'string')
        .map((c) => c.text)
        .join('')
      if (text) lastText = text
    } else if (event.type === 'result') result = event
  })
  if (!result)
    throw new HarnessError(
      `claude-code exited (${exit.signal ?? `code ${exit.code}`}) before its result${tail(exit.stderrTail)}`,
      { sessionId, model },
    )
  const raw = (result.usage ?? {}) as Record<string, unknown>
  const usage = {
    ...emptyUsage(),
    inputTokens:
      (num(raw.input_tokens) ?? 0) +
      (num(raw.cache_creation_input_tokens) ?? 0) +
      (num(raw.cache_read_input_tokens) ?? 0),
    outputTokens: num(raw.output_tokens) ?? 0,
    ...(num(raw.cache_read_input_tokens) !== undefined && { cacheReadTokens: num(raw.cache_read_input_tokens)! }),
    ...(num(raw.cache_creation_input_tokens) !== undefined && {
      cacheWriteTokens: num(raw.cache_creation_input_tokens)!,
    }),
    ...(num(result.total_cost_usd) !== undefined && { costUsd: num(result.total_cost_usd)! }),
  }
  const turns = num(result.num_turns)
  const partial = { sessionId, model, usage, turns }
  if (result.is_error === true || result.subtype !== 'success') {
    const why =
      result.subtype === 'error_max_turns'
        ? `reached maxTurns after ${turns ?? '?'} turns`
        : String(result.result ?? result.subtype ?? 'an error result')
    throw new HarnessError(`claude-code failed (${String(result.subtype)}): ${why}`, partial)
  }
  return { text: typeof result.result === 'string' ? result.result : lastText, ...partial }
}
