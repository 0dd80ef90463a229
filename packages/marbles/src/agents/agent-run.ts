import { randomUUID } from 'node:crypto'
import type { JsonValue } from '@foundry/kernel'
import { KIND } from '../define/brand.js'
import type { AgentDefinition } from '../define/agent.js'
import type { RunContext } from '../define/context.js'
import type { WorkflowDefinition } from '../define/workflow.js'
import { timeoutReason } from '../engine/errors.js'
import { HarnessError, type AgentResult, type AgentUsage, type Harness } from '../harnesses/types.js'
import { handOff, type AgentOutput } from './answer.js'
import { resolveCwd } from './cwd.js'
import type { SessionRef, Sessions } from './sessions.js'

/** A run's name for an agent: `agent:<id>`, or `agent:*` for an ad hoc one (names cannot hold `:`). */
export const agentRunName = (id: string | undefined) => `agent:${id ?? '*'}`
export const isAgentRun = (name: string) => name.startsWith('agent:')

/** What `dispatch_agent` accepts (seed 003), plus `contract`. */
export interface AgentDispatch {
  prompt: string
  agent?: string
  instructions?: string
  model?: string
  provider?: string
  cwd?: string
  maxTurns?: number
  timeoutMs?: number
  compaction?: boolean
  session?: SessionRef
  /** An output contract (`review.v1`, `finding.v1`, or the project's): the answer must be JSON valid against it. */
  contract?: string
}

/** An agent run's input as journaled: the dispatch resolved (route, folder, session) before the run exists. */
export interface AgentRunInput {
  prompt: string
  agent?: string
  instructions: string
  provider: string
  model?: string
  cwd: string
  maxTurns?: number
  timeoutMs?: number
  compaction?: boolean
  session: SessionRef
  /** The harness's id of the conversation to continue. */
  resume?: string
  contract?: string
}

/** The output of an agent run: the handed-off answer, the session to continue, the usage. */
export interface AgentRunOutput extends AgentOutput {
  session: SessionRef
  usage: AgentUsage
  turns?: number
}

export interface AgentHost {
  harnesses: ReadonlyMap<string, Harness>
  /** The workspace root: agents' `cwd` stays inside it. */
  root: string
  agents: ReadonlyMap<string, AgentDefinition>
  sessions: Sessions
  /** The provider when neither the dispatch nor the agent names one. */
  defaultProvider: string
  /** `--dry-run`: every agent runs on this harness (the AI SDK's mock model). */
  dryRun?: Harness
  /** `foundry mcp` for the project, given to Claude Code runs. */
  foundryMcp?: { command: string; args: string[]; env: Record<string, string> }
  /** Checks a contract id exists (throws NOT_FOUND listing them). */
  checkContract(id: string): Promise<void>
}

const ADHOC_INSTRUCTIONS = 'Complete the task below. Reply with the result only.'

/** A session's model when none was named and the harness reported none: the CLI's own default, never passed on as a model id. */
const DEFAULT_MODEL = 'default'

/**
 * The model a session reference names, if it names one. A model belongs to its provider: an agent's
 * route is used only when the run goes to that route's provider, and `default` is no model at all.
 */
const modelOf = (session: SessionRef | undefined): string | undefined =>
  session && session.model !== DEFAULT_MODEL ? session.model : undefined

/**
 * Resolve a dispatch into a run's input, or throw one line naming the field: an unknown `agent`,
 * `provider`, `contract` or `session`, `maxTurns` its harness cannot enforce (or over Claude Code's
 * 100), a `cwd` outside the workspace root, a session another run is using.
 */
export async function prepareAgentRun(host: AgentHost, dispatch: AgentDispatch): Promise<AgentRunInput> {
  if (dispatch.session) {
    const user = host.sessions.user(dispatch.session.id)
    if (user)
      throw new Error(
        `session: ${dispatch.session.id} is in use by run ${user}; wait for that run to finish, then continue it`,
      )
  }
  const known = dispatch.session ? await host.sessions.get(dispatch.session.id) : undefined
  if (dispatch.session && !known)
    throw new Error(
      `session: ${dispatch.session.id} is not a session of this state; omit session to start a conversation`,
    )
  // A continued conversation keeps its agent unless the dispatch names one.
  const agentId = dispatch.agent ?? known?.agent
  const declared = agentId !== undefined ? host.agents.get(agentId) : undefined
  if (dispatch.agent !== undefined && !declared) {
    const known = [...host.agents.keys()].sort()
    throw new Error(
      `agent: no agent "${dispatch.agent}"${known.length ? `; declared: ${known.join(', ')}` : ' (the workspace declares none; omit agent for an ad hoc one)'}`,
    )
  }
  const provider = dispatch.provider ?? dispatch.session?.provider ?? declared?.model?.provider ?? host.defaultProvider
  const harness = host.harnesses.get(provider)
  if (!harness)
    throw new Error(
      `provider: "${provider}" is not offered by this server; offered: ${[...host.harnesses.keys()].join(', ')}`,
    )
  if (dispatch.maxTurns !== undefined) {
    if (harness.maxTurns === 'rejected')
      throw new Error(
        `maxTurns: the ${provider} harness cannot enforce a turn limit; omit maxTurns to use its own loop`,
      )
    if (harness.maxTurnsLimit !== undefined && dispatch.maxTurns > harness.maxTurnsLimit)
      throw new Error(`maxTurns: ${provider} accepts at most ${harness.maxTurnsLimit}; got ${dispatch.maxTurns}`)
  }
  if (dispatch.contract !== undefined)
    await host
      .checkContract(dispatch.contract)
      .catch((error: Error) => Promise.reject(new Error(`contract: ${error.message}`)))
  const cwd = (() => {
    try {
      return resolveCwd(host.root, dispatch.cwd)
    } catch (error) {
      throw new Error(`cwd: ${(error as Error).message}`)
    }
  })()
  const model =
    dispatch.model ??
    modelOf(dispatch.session) ??
    (declared?.model?.provider === provider ? declared.model.model : undefined)
  let session: SessionRef
  let resume: string | undefined
  if (dispatch.session && known) {
    if (known.provider !== provider)
      throw new Error(
        `session: ${dispatch.session.id} is a ${known.provider} conversation; it cannot continue on ${provider}`,
      )
    session = { id: known.id, provider, model: model ?? known.model }
    resume = known.native ?? known.id
  } else session = { id: randomUUID(), provider, model: model ?? DEFAULT_MODEL }
  const instructions = [
    declared?.instructions ?? (dispatch.instructions === undefined ? ADHOC_INSTRUCTIONS : ''),
    dispatch.instructions ?? '',
  ]
    .filter(Boolean)
    .join('\n\n')
  return {
    prompt: dispatch.prompt,
    ...(agentId !== undefined && { agent: agentId }),
    instructions,
    provider,
    ...(model !== undefined && { model }),
    cwd,
    ...(dispatch.maxTurns !== undefined && { maxTurns: dispatch.maxTurns }),
    ...(dispatch.timeoutMs !== undefined && { timeoutMs: dispatch.timeoutMs }),
    ...(dispatch.compaction !== undefined && { compaction: dispatch.compaction }),
    session,
    ...(resume !== undefined && { resume }),
    ...(dispatch.contract !== undefined && { contract: dispatch.contract }),
  }
}

/** The engine's runnable for agent runs named `name`: it runs `runAgent`. */
export function agentRunnable(name: string, host: AgentHost): WorkflowDefinition<AgentRunInput, AgentRunOutput> {
  return {
    [KIND]: 'workflow',
    name,
    description: 'an agent run',
    input: undefined,
    timeoutMs: undefined,
    resumable: false,
    version: undefined,
    compatible: [],
    run: (ctx, input) => runAgent(ctx, input, host),
  }
}

/**
 * One agent run: the prompt starts with the memory index (the session-start policy); the harness's
 * stdout (info) and stderr (warn) lines go to the journal under step `agent`; usage and cost are
 * recorded (`marbles.usage`, and a journal line); the answer goes through the contract and the
 * firewall (`handOff`). `timeoutMs` aborts the harness and fails the run with a TimeoutError.
 */
export async function runAgent(ctx: RunContext, input: AgentRunInput, host: AgentHost): Promise<AgentRunOutput> {
  try {
    return await runHarness(ctx, input, host)
  } finally {
    // Free the session once the run's work is done, before its outcome is journaled: a client that
    // reads `completed` can continue the conversation at once.
    host.sessions.release(input.session.id, ctx.runId)
  }
}

async function runHarness(ctx: RunContext, input: AgentRunInput, host: AgentHost): Promise<AgentRunOutput> {
  const harness = host.dryRun ?? host.harnesses.get(input.provider)
  if (!harness) throw new Error(`provider "${input.provider}" is not offered by this server`)
  const index = await ctx.kernel.memory.readIndex().catch(() => '')
  const prompt = index.trim() ? `${index.trim()}\n\n---\n\n${input.prompt}` : input.prompt
  const controller = new AbortController()
  const onAbort = () => controller.abort(ctx.signal.reason)
  ctx.signal.addEventListener('abort', onAbort, { once: true })
  const timer = input.timeoutMs
    ? setTimeout(() => controller.abort(timeoutReason(`agent run ${ctx.runId}`, input.timeoutMs!)), input.timeoutMs)
    : undefined
  const record = (usage: AgentUsage | undefined, result: Partial<AgentResult>) => {
    if (!usage) return
    const data = {
      runId: ctx.runId,
      agent: input.agent ?? '*',
      provider: input.provider,
      model: result.model ?? input.model ?? DEFAULT_MODEL,
      ...usage,
      ...(result.turns !== undefined && { turns: result.turns }),
    }
    void ctx.kernel.record('marbles.usage', data)
    ctx.log.info(
      `usage: ${usage.inputTokens} input + ${usage.outputTokens} output tokens${usage.costUsd !== undefined ? `, $${usage.costUsd.toFixed(4)}` : ''}`,
    )
  }
  if (input.compaction !== undefined && !harness.compaction)
    ctx.log.info(`compaction: the ${harness.name} harness has no compaction setting; its own default applies`)
  let result = undefined as AgentResult | undefined
  try {
    // The step journals the run's usage, not its answer: the answer goes through the firewall below.
    await ctx.step('agent', async (step) => {
      try {
        result = await harness.run({
          prompt,
          instructions: input.instructions,
          model: input.model,
          cwd: input.cwd,
          maxTurns: input.maxTurns,
          compaction: input.compaction,
          resume: input.resume,
          newSessionId: input.session.id,
          signal: controller.signal,
          output: (stream, line) => (stream === 'stdout' ? step.log.info(line) : step.log.warn(line)),
          kernel: ctx.kernel,
          foundryMcp: host.foundryMcp,
        })
        return {
          session: result.sessionId ?? null,
          model: result.model ?? null,
          turns: result.turns ?? null,
          chars: result.text.length,
          usage: { ...result.usage },
        } as JsonValue
      } catch (error) {
        if (controller.signal.aborted && !ctx.signal.aborted) throw controller.signal.reason // the timeout
        throw error
      }
    })
  } catch (error) {
    if (error instanceof HarnessError) {
      record(error.partial.usage, error.partial)
      await saveSession(host, input, error.partial.sessionId, ctx.runId)
    }
    throw error
  } finally {
    clearTimeout(timer)
    ctx.signal.removeEventListener('abort', onAbort)
  }
  if (!result) throw new Error('the agent step ended without a result')
  record(result.usage, result)
  await saveSession(host, input, result.sessionId, ctx.runId)
  const output = await handOff(ctx.kernel, ctx.runId, result.text, {
    ...(input.contract && { contract: input.contract }),
    sessionId: input.session.id,
  })
  if (output.artifact)
    ctx.log.info(`the answer (~${output.tokens} tokens) is over the handoff budget: saved whole to ${output.artifact}`)
  return {
    ...output,
    session: {
      ...input.session,
      ...(result.model && input.session.model === DEFAULT_MODEL && { model: result.model }),
    },
    usage: result.usage,
    ...(result.turns !== undefined && { turns: result.turns }),
  }
}

async function saveSession(
  host: AgentHost,
  input: AgentRunInput,
  native: string | undefined,
  runId: string,
): Promise<void> {
  await host.sessions
    .save({
      ...input.session,
      ...(input.agent !== undefined && { agent: input.agent }),
      ...((native ?? input.resume) && { native: native ?? input.resume }),
      lastRun: runId,
      updatedAt: Date.now(),
    })
    .catch(() => {})
}
