import { HarnessError, emptyUsage, type AgentRequest, type AgentResult, type Harness } from './types.js'
import { num } from './process.js'
import { runStreamingCli, tail, type CliHarnessOptions } from './stream-cli.js'

/**
 * Codex: `codex exec --json`, one event a line: `thread.started` (thread_id), `turn.started`,
 * `item.started|updated|completed` (the last `agent_message` item is the answer), `turn.completed`
 * (usage: input_tokens, cached_input_tokens, output_tokens), `turn.failed` (error) and `error`.
 * A thread is continued with `codex exec resume <thread_id>`. It has no turn limit Marbles can set,
 * and no compaction switch: its config has only a threshold (`model_auto_compact_token_limit`, set with
 * `-c`), no way to turn auto-compaction on or off, so `compaction` is not forwarded.
 */
export function codexHarness(options: CliHarnessOptions = {}): Harness {
  return {
    name: 'codex',
    maxTurns: 'rejected',
    async run(request: AgentRequest): Promise<AgentResult> {
      const text = request.instructions ? `${request.instructions}\n\n${request.prompt}` : request.prompt
      const args = ['exec', '--json', '--skip-git-repo-check']
      if (request.model) args.push('--model', request.model)
      if (request.resume) args.push('resume', request.resume)
      args.push(text)
      let sessionId: string | undefined
      let answer: string | undefined
      let failure: string | undefined
      const usage = emptyUsage()
      let turns = 0
      const exit = await runStreamingCli(request, options, 'codex', args, (event) => {
        if (event.type === 'thread.started' && typeof event.thread_id === 'string') sessionId = event.thread_id
        else if (event.type === 'item.completed') {
          const item = event.item as { type?: string; text?: string } | undefined
          if (item?.type === 'agent_message' && typeof item.text === 'string') answer = item.text
        } else if (event.type === 'turn.completed') {
          turns++
          const u = (event.usage ?? {}) as Record<string, unknown>
          usage.inputTokens += num(u.input_tokens) ?? 0
          usage.outputTokens += num(u.output_tokens) ?? 0
          if (num(u.cached_input_tokens) !== undefined)
            usage.cacheReadTokens = (usage.cacheReadTokens ?? 0) + num(u.cached_input_tokens)!
        } else if (event.type === 'turn.failed')
          failure = String((event.error as { message?: string } | undefined)?.message ?? 'turn failed')
        else if (event.type === 'error') failure ??= String(event.message ?? 'error')
      })
      const partial = { sessionId, model: request.model, usage, turns }
      if (failure) throw new HarnessError(`codex failed: ${failure}`, partial)
      if (exit.code !== 0 || answer === undefined)
        throw new HarnessError(
          `codex exited (${exit.signal ?? `code ${exit.code}`}) without an answer${tail(exit.stderrTail)}`,
          partial,
        )
      return { text: answer, ...partial }
    },
  }
}
