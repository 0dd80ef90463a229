import { HarnessError, emptyUsage, type AgentRequest, type AgentResult, type Harness } from './types.js'
import { num } from './process.js'
import { runStreamingCli, tail, type CliHarnessOptions } from './stream-cli.js'

interface PiMessage {
  role?: string
  content?: Array<{ type?: string; text?: string }>
  model?: string
  stopReason?: string
  errorMessage?: string
  usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; cost?: { total?: number } }
}

/**
 * pi: `pi --mode json -p <prompt>`, one event a line: `session` (its id), `agent_start`,
 * `turn_start`/`turn_end`, `message_start`/`message_update`/`message_end` (an assistant message with
 * content, usage {input, output, cacheRead, cacheWrite, cost.total}, stopReason, errorMessage),
 * `tool_execution_*`, and `agent_end`. A session is continued with `--session <id>`. It has no turn
 * limit Marbles can set, and no compaction flag: `compaction.enabled` lives only in its settings files
 * (`~/.pi/agent/settings.json`, the project's `.pi/settings.json`), which a run must not rewrite, so
 * `compaction` is not forwarded.
 */
export function piHarness(options: CliHarnessOptions = {}): Harness {
  return {
    name: 'pi',
    maxTurns: 'rejected',
    async run(request: AgentRequest): Promise<AgentResult> {
      const args = ['--mode', 'json']
      if (request.instructions) args.push('--append-system-prompt', request.instructions)
      if (request.model) args.push('--model', request.model)
      if (request.resume) args.push('--session', request.resume)
      args.push('-p', request.prompt)
      let sessionId: string | undefined
      let last: PiMessage | undefined
      let ended = false
      let turns = 0
      let model: string | undefined
      const usage = emptyUsage()
      const exit = await runStreamingCli(request, options, 'pi', args, (event) => {
        if (event.type === 'session' && typeof event.id === 'string') sessionId = event.id
        else if (event.type === 'turn_end') turns++
        else if (event.type === 'agent_end') ended = true
        else if (event.type === 'message_end') {
          const message = event.message as PiMessage | undefined
          if (message?.role !== 'assistant') return
          last = message
          if (message.model) model = message.model
          usage.inputTokens +=
            (num(message.usage?.input) ?? 0) +
            (num(message.usage?.cacheRead) ?? 0) +
            (num(message.usage?.cacheWrite) ?? 0)
          usage.outputTokens += num(message.usage?.output) ?? 0
          const cost = num(message.usage?.cost?.total)
          if (cost !== undefined) usage.costUsd = (usage.costUsd ?? 0) + cost
        }
      })
      const partial = { sessionId, model, usage, turns }
      if (last?.stopReason === 'error' || last?.stopReason === 'aborted')
        throw new HarnessError(`pi failed: ${last.errorMessage ?? last.stopReason}`, partial)
      if (!ended || !last || exit.code !== 0)
        throw new HarnessError(
          `pi exited (${exit.signal ?? `code ${exit.code}`}) before agent_end${tail(exit.stderrTail)}`,
          partial,
        )
      const text = (last.content ?? [])
        .filter((c) => c.type === 'text')
        .map((c) => c.text ?? '')
        .join('')
      return { text, ...partial }
    },
  }
}
