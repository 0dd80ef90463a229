import { randomUUID } from 'node:crypto'
import { validator, type Kernel } from '@foundry/kernel'
import { KERNEL_TOOLS, type ToolName, type ToolRow } from '@foundry/kernel/tools'
import type { LanguageModel, ModelMessage, ToolSet } from 'ai'
import { HarnessError, type AgentRequest, type AgentResult, type Harness } from './types.js'

/** The step limit when a dispatch names no `maxTurns`. */
export const DEFAULT_STEPS = 20

/** Turns a provider and model id into an AI SDK model; undefined for a provider it does not know. */
export type ModelResolver = (provider: string, model: string | undefined) => Promise<LanguageModel | undefined>

export interface AiSdkHarnessOptions {
  /** The provider name dispatches use: `anthropic`, `mock`, … */
  provider: string
  /** Default: `anthropic` through `@ai-sdk/anthropic` (ANTHROPIC_API_KEY), `mock` through the AI SDK's mock model. */
  resolveModel?: ModelResolver
}

/**
 * A network model through the AI SDK (`generateText`): `maxTurns` is its step limit, the project's
 * kernel calls are its tools (`AGENT_TOOLS`: the rows `foundry mcp` serves), and a session is the
 * conversation's messages, kept for the life of the harness. It does not compact a conversation, so
 * it has no `compaction` setting.
 */
export function aiSdkHarness(options: AiSdkHarnessOptions): Harness {
  const sessions = new Map<string, ModelMessage[]>()
  const resolve = options.resolveModel ?? defaultModels
  return {
    name: options.provider,
    maxTurns: 'steps',
    async run(request: AgentRequest): Promise<AgentResult> {
      const { generateText, stepCountIs } = await import('ai')
      const model = await resolve(options.provider, request.model)
      if (!model)
        throw new HarnessError(`provider ${options.provider}: no AI SDK model for it (known: anthropic, mock)`)
      const sessionId = request.resume ?? request.newSessionId
      if (request.resume && !sessions.has(request.resume))
        throw new HarnessError(
          `session ${request.resume} is not held by this server (AI SDK sessions live as long as the server)`,
        )
      const history = sessions.get(sessionId) ?? []
      const messages: ModelMessage[] = [...history, { role: 'user', content: request.prompt }]
      let steps = 0
      try {
        const result = await generateText({
          model,
          ...(request.instructions && { system: request.instructions }),
          messages,
          tools: await kernelTools(request.kernel),
          stopWhen: stepCountIs(request.maxTurns ?? DEFAULT_STEPS),
          abortSignal: request.signal,
          onStepFinish(step) {
            steps++
            for (const call of step.toolCalls)
              request.output(
                'stdout',
                JSON.stringify({ type: 'tool-call', toolName: call.toolName, input: call.input }),
              )
            if (step.text) request.output('stdout', JSON.stringify({ type: 'text', text: step.text }))
          },
        })
        sessions.set(sessionId, [...messages, ...result.response.messages])
        const usage = {
          inputTokens: result.totalUsage.inputTokens ?? 0,
          outputTokens: result.totalUsage.outputTokens ?? 0,
        }
        const modelId = typeof model === 'string' ? model : model.modelId
        return { text: result.text, sessionId, model: modelId, usage, turns: steps }
      } catch (error) {
        if (request.signal.aborted) throw request.signal.reason
        throw new HarnessError(`${options.provider} failed: ${(error as Error).message}`, { sessionId, turns: steps })
      }
    },
  }
}

/** The kernel tools an AI SDK agent gets: these rows of `KERNEL_TOOLS`, as `foundry mcp` serves them. */
export const AGENT_TOOLS: readonly ToolName[] = [
  'memory_search',
  'contract_validate',
  'blackboard_write',
  'blackboard_read',
]

/**
 * The rows of `AGENT_TOOLS` as AI SDK tools: the same names, descriptions and input schemas; the
 * input is validated against the row's schema, then the row's call runs and its text is the result.
 */
async function kernelTools(kernel: Kernel): Promise<ToolSet> {
  const { jsonSchema, tool } = await import('ai')
  const rows: readonly ToolRow<Kernel>[] = KERNEL_TOOLS
  const tools: ToolSet = {}
  for (const row of rows) {
    if (!(AGENT_TOOLS as readonly string[]).includes(row.name)) continue
    const input = validator(row.input)
    tools[row.name] = tool({
      description: row.description,
      inputSchema: jsonSchema(row.input),
      execute: async (args: unknown) => (await row.call(kernel, input.parse(args, 'arguments'))).text,
    })
  }
  return tools
}

async function defaultModels(provider: string, model: string | undefined): Promise<LanguageModel | undefined> {
  if (provider === 'anthropic') {
    const { createAnthropic } = await import('@ai-sdk/anthropic')
    return createAnthropic()(model ?? 'claude-sonnet-4-5')
  }
  if (provider === 'mock') return dryRunModel(model)
  return undefined
}

/**
 * `--dry-run`'s model: the AI SDK's own mock. It answers with the prompt's last line (the task),
 * counting a token for each four characters; no network, no cost.
 */
export async function dryRunModel(model = 'dry-run'): Promise<LanguageModel> {
  const { MockLanguageModelV4 } = await import('ai/test')
  return new MockLanguageModelV4({
    provider: 'mock',
    modelId: model,
    doGenerate: async (options) => {
      const prompt = JSON.stringify(options.prompt)
      const last = options.prompt.at(-1)
      const said =
        last && Array.isArray(last.content) ? last.content.map((p) => ('text' in p ? p.text : '')).join('') : ''
      const task = said.trim().split('\n').at(-1) ?? ''
      const text = `[dry run] ${task}`
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: {
            total: Math.ceil(prompt.length / 4),
            noCache: undefined,
            cacheRead: undefined,
            cacheWrite: undefined,
          },
          outputTokens: { total: Math.ceil(text.length / 4), text: undefined, reasoning: undefined },
        },
        warnings: [],
        response: { id: randomUUID(), modelId: model, timestamp: new Date() },
      }
    },
  })
}
