import { FoundryError, type JsonValue } from '@foundry/kernel'
import { workspaceIsolation } from '../engine/isolate/workspace-isolation.js'
import { kindOf } from '../define/brand.js'
import type { Definitions, Runnable } from '../define/registry.js'
import {
  agentRunnable,
  agentRunName,
  isAgentRun,
  prepareAgentRun,
  type AgentDispatch,
  type AgentHost,
  type AgentRunInput,
  type AgentRunOutput,
} from '../agents/agent-run.js'
import { createSessions } from '../agents/sessions.js'
import { openEngine, type Engine, type EngineOptions, type RunInfo } from '../engine/engine.js'
import { aiSdkHarness, dryRunModel, type ModelResolver } from '../harnesses/ai-sdk.js'
import { createHarnesses } from '../harnesses/registry.js'
import { openState, type MarblesState } from '../state.js'
import { loadWorkspace, type Workspace } from '../workspace/load.js'
import { resolveFoundryBin } from './foundry-bin.js'
import type { DispatchResultOut, ListConfigResult, McpStatus, RunResultOut } from './schemas.js'
import type { RunStatus } from '../journal/records.js'
import { foldJournal, followJournal, readJournal } from '../journal/follow.js'

/** `get_run` returns at most this many characters of an answer or an output's JSON a call (~2 000 tokens). */
export const PAGE_CHARS = 8000

export interface MarblesHostOptions {
  /** Where `.foundry/marbles/` is looked for, and the root agents' `cwd` stays inside. */
  root: string
  source?: string
  state?: string
  artifacts?: string
  /** `--harness` values (see `createHarnesses`). */
  harness?: string[]
  dryRun?: boolean
  /** How much one run may journal (`--journal-lines`, `--journal-bytes`). */
  journal?: EngineOptions['journal']
  /** Between SIGTERM and SIGKILL of a harness child. */
  killGraceMs?: number
  resolveModel?: ModelResolver
  /** The provider when neither the dispatch nor its agent names one. Default `claude-code` (`mock` with `dryRun`). */
  defaultProvider?: string
  /**
   * On a state with a job queue (PostgreSQL): also execute runs from it here (default true), so a lone
   * server runs what it dispatches; false (`--no-work`): only dispatch, for workers to execute.
   */
  work?: boolean
}

/** What the five tools call: one workspace, one engine executing this host's launches, the harnesses, the runs this host launched. */
export interface MarblesHost {
  workspace: Workspace
  state: MarblesState
  engine: Engine
  listConfig(): ListConfigResult
  /** `idempotencyKey`: the run an earlier dispatch with that key made (24 h), as it stands. */
  dispatchWorkflow(name: string, input: unknown, idempotencyKey?: string): Promise<DispatchResultOut>
  dispatchAgent(dispatch: AgentDispatch, idempotencyKey?: string): Promise<DispatchResultOut>
  getRun(runId: string, cursor?: number): Promise<RunResultOut>
  cancelRun(runId: string): Promise<RunResultOut>
  /** Send the signal a run this host launched waits for; the run as it stands once it took it. */
  signalRun(runId: string, name: string, data: unknown): Promise<RunResultOut>
  /** Cancel the runs still going, close the engine and the state. */
  close(): Promise<void>
}

export const mcpStatus = (status: RunStatus, waiting?: unknown): McpStatus =>
  status === 'complete'
    ? 'completed'
    : status === 'cancel_requested'
      ? 'running'
      : status === 'suspended' && waiting
        ? 'waiting'
        : status

/**
 * Open what `marbles mcp` serves: the workspace (source, environment, modules: a failure throws one
 * line naming the file or variable), the state, an engine of its own beside any others on the state
 * (`local`: it executes this host's launches; no schedule loop), the harnesses. On a state with a job
 * queue (PostgreSQL) the engine dispatches through it and, unless `work` is false, is one more worker
 * of it (the workspace's workflows and steps, and agent runs), so any worker may run this host's launches.
 */
export async function openHost(options: MarblesHostOptions): Promise<MarblesHost> {
  const harnesses = createHarnesses({
    ...(options.harness && { flags: options.harness }),
    ...(options.killGraceMs !== undefined && { graceMs: options.killGraceMs }),
    ...(options.resolveModel && { resolveModel: options.resolveModel }),
  })
  const workspace = await loadWorkspace({
    root: options.root,
    ...(options.source !== undefined && { source: options.source }),
  })
  const state = await openState({
    root: options.root,
    needKernel: true,
    ...(options.state !== undefined && { state: options.state }),
    ...(options.artifacts !== undefined && { artifacts: options.artifacts }),
    ...(options.dryRun && { dryRun: true }),
  })
  try {
    const sessions = createSessions(state.storage)
    const agentHost: AgentHost = {
      harnesses,
      root: options.root,
      agents: workspace.definitions.agents,
      sessions,
      defaultProvider: options.defaultProvider ?? (options.dryRun ? 'mock' : 'claude-code'),
      ...(options.dryRun && {
        dryRun: aiSdkHarness({ provider: 'mock', resolveModel: async (_p, model) => dryRunModel(model) }),
      }),
      ...(!options.dryRun && foundryMcp(state.root)),
      checkContract: async (id) => void (await state.kernel.contracts.get(id)),
    }
    const runnables = new Map<string, Runnable>(workspace.definitions.runnables)
    runnables.set(agentRunName(undefined), agentRunnable(agentRunName(undefined), agentHost) as Runnable)
    for (const id of workspace.definitions.agents.keys())
      runnables.set(agentRunName(id), agentRunnable(agentRunName(id), agentHost) as Runnable)
    const definitions: Definitions = { ...workspace.definitions, runnables }
    const isolate = workspaceIsolation(workspace)
    const graceMs = (options.killGraceMs ?? 2000) + 1000
    // A state with a job queue: dispatches enqueue, and any worker (this server too, unless told not to) runs them.
    const work = options.work !== false
    const queue = await state.queue(work)
    const engine = await openEngine({
      storage: state.storage,
      artifacts: state.artifacts,
      kernel: state.kernel,
      definitions,
      ...(queue ? { queue } : { role: 'local' as const }),
      ...(!queue && state.concurrency !== undefined && { concurrency: state.concurrency }),
      ...(isolate && { isolate }),
      graceMs,
      ...(options.journal && { journal: options.journal }),
    })
    if (queue && work)
      await engine
        .work({
          workflows: [...runnables.keys()],
          ...(state.concurrency !== undefined && { concurrency: state.concurrency }),
          drainMs: graceMs,
        })
        .catch(async (error: unknown) => {
          await engine.close().catch(() => {})
          throw error
        })
    return createHost(workspace, state, engine, agentHost)
  } catch (error) {
    await state.close().catch(() => {})
    throw error
  }
}

/**
 * Node's options for a `foundry mcp` process, as the plugin's .mcp.json starts it: V8 favours memory
 * over speed and keeps one background thread (the server's resident size after 10k writes is about
 * half what plain `node` gives it).
 */
const SERVER_NODE_OPTIONS = ['--optimize-for-size', '--v8-pool-size=1']
/** Its environment's part of the same: glibc hands freed blocks of 128 KB and more back to the system. */
const SERVER_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' }

/** `foundry mcp` for the project, from the installed `foundry` bin (foundry-bin.ts); absent when there is none. */
function foundryMcp(root: string): { foundryMcp: NonNullable<AgentHost['foundryMcp']> } | Record<string, never> {
  const bin = resolveFoundryBin(root)
  if (!bin) return {}
  // The agent's own environment is allow-listed (agentEnvironment): the database URL a Postgres
  // project may need reaches only its foundry mcp, through this entry.
  const url = process.env.FOUNDRY_DATABASE_URL
  return {
    foundryMcp: {
      command: process.execPath,
      args: [...SERVER_NODE_OPTIONS, bin, 'mcp'],
      env: { ...SERVER_MALLOC_ENV, FOUNDRY_ROOT: root, ...(url && { FOUNDRY_DATABASE_URL: url }) },
    },
  }
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
function createHost(workspace: Workspace, state: MarblesState, engine: Engine, agents: AgentHost): MarblesHost {
  const launched = new Map<string, 'workflow' | 'step' | 'agent'>()
  const ws = workspace.definitions

  const known = async (runId: string): Promise<{ info: RunInfo; kind: 'workflow' | 'step' | 'agent' }> => {
    const kind = launched.get(runId)
    const info = kind && (await engine.get(runId))
    if (!kind || !info)
      throw new FoundryError(
        'NOT_FOUND',
        `runId: ${runId} is not a run this server launched (get_run and cancel_run address this server's runs only)`,
      )
    return { info, kind }
  }

  /** The stored value of a large output (kept in an artifact under the run's id). */
  const largeOutput = async (runId: string): Promise<unknown> => {
    const stored = (await state.artifacts.get('artifacts', `${runId}/output`)) as
      | { data?: { value?: unknown } }
      | undefined
    return stored?.data?.value
  }

  const page = (text: string, cursor = 0) => {
    const slice = text.slice(cursor, cursor + PAGE_CHARS)
    const next = cursor + slice.length
    return { slice, ...(next < text.length && { nextCursor: String(next) }), totalChars: text.length }
  }

  async function describe(runId: string, cursor?: number): Promise<RunResultOut> {
    const { info, kind } = await known(runId)
    const out: RunResultOut = {
      runId,
      kind,
      name: info.name,
      status: mcpStatus(info.status, info.waitFor),
      ...(info.status === 'cancel_requested' && { cancelRequested: true }),
      ...(info.status === 'suspended' &&
        info.waitFor && {
          waitingFor: {
            signal: info.waitFor.signal,
            ...(info.waitFor.until !== undefined && { until: info.waitFor.until }),
          },
        }),
      ...(info.rerunOf && { rerunOf: info.rerunOf }),
      createdAt: info.createdAt,
      updatedAt: info.updatedAt,
      ...(info.reason && { reason: info.reason }),
      ...(info.error && { error: info.error }),
    }
    if (info.status !== 'complete') return out
    const value = info.output !== undefined ? info.output : info.artifact ? await largeOutput(runId) : undefined
    if (kind === 'agent' && value && typeof value === 'object') {
      const { text, ...rest } = value as unknown as AgentRunOutput
      Object.assign(out, rest)
      if (info.artifact && !rest.artifact) out.artifact = info.artifact
      if (text !== undefined) {
        const p = page(text, cursor)
        out.text = p.slice
        if (p.nextCursor) Object.assign(out, { nextCursor: p.nextCursor, totalChars: p.totalChars })
      }
      return out
    }
    if (value === undefined) return out
    const json = JSON.stringify(value)
    if (json.length <= PAGE_CHARS && !cursor) out.output = value
    else {
      const p = page(json, cursor)
      out.outputText = p.slice
      out.totalChars = p.totalChars
      if (p.nextCursor) out.nextCursor = p.nextCursor
    }
    if (info.artifact) out.artifact = info.artifact
    return out
  }

  return {
    workspace,
    state,
    engine,
    listConfig() {
      return {
        source: workspace.source.path,
        root: agents.root,
        definitions: [...ws.runnables.values()].map((d) => ({
          name: d.name,
          kind: kindOf(d) as 'workflow' | 'step',
          ...(d.description && { description: d.description }),
          inputSchema: (d.input ?? { type: 'object' }) as unknown,
        })),
        agents: [...ws.agents.values()].map((a) => ({
          id: a.id,
          ...(a.description && { description: a.description }),
          ...(a.model && { model: { ...a.model } }),
        })),
        schedules: [...ws.schedules.values()].map((s) => ({ name: s.name, workflow: s.workflow, when: s.when })),
        monitors: [...ws.monitors.values()].map((m) => ({ name: m.name, workflow: m.workflow, everyMs: m.everyMs })),
        providers: [...agents.harnesses.keys()],
        compaction: Object.fromEntries(
          [...agents.harnesses].map(([name, harness]) => [name, harness.compaction ?? 'none']),
        ),
      }
    },
    async dispatchWorkflow(name, input, idempotencyKey) {
      const def = ws.runnables.get(name)
      if (!def) {
        const names = [...ws.runnables.keys()].sort()
        throw new FoundryError(
          'NOT_FOUND',
          `name: no workflow or step "${name}"${names.length ? `; known: ${names.join(', ')}` : ' (the workspace declares none)'}`,
        )
      }
      const { runId, status } = await engine.dispatch(
        name,
        input ?? {},
        idempotencyKey === undefined ? {} : { idempotencyKey },
      )
      const kind = kindOf(def) as 'workflow' | 'step'
      launched.set(runId, kind)
      return { runId, kind, name, status: mcpStatus(status) }
    },
    async dispatchAgent(dispatch, idempotencyKey) {
      const input = await prepareAgentRun(agents, dispatch)
      const name = agentRunName(input.agent)
      const { runId, status, deduplicated } = await engine.dispatch(
        name,
        input as unknown as JsonValue,
        idempotencyKey === undefined ? {} : { idempotencyKey },
      )
      if (deduplicated) {
        launched.set(runId, 'agent')
        const first = (await readJournal(state.storage, runId))[0]
        const session =
          first?.type === 'status' ? (first.input as unknown as AgentRunInput | undefined)?.session : undefined
        return { runId, kind: 'agent', name, status: mcpStatus(status), ...(session && { session }) }
      }
      if (!agents.sessions.claim(input.session.id, runId)) {
        await engine.cancel(runId)
        throw new FoundryError(
          'CONFLICT',
          `session: ${input.session.id} is in use by run ${agents.sessions.user(input.session.id)}; wait for that run to finish`,
        )
      }
      launched.set(runId, 'agent')
      void engine.settled(runId).finally(() => agents.sessions.release(input.session.id, runId))
      return { runId, kind: 'agent', name, status: mcpStatus(status), session: input.session }
    },
    getRun: describe,
    async signalRun(runId, name, data) {
      await known(runId)
      await signalAndWait(engine, state, runId, name, data)
      return describe(runId)
    },
    async cancelRun(runId) {
      await known(runId)
      await engine.cancel(runId)
      return describe(runId)
    },
    async close() {
      await engine.close()
      await state.close()
    },
  }
}

export { isAgentRun }

/** Send a signal, then wait (30 s at most: the engine behind this host owns the state, so it takes it) until the run has taken it and its record no longer says suspended: what follows reads it resumed. */
export async function signalAndWait(
  engine: Engine,
  state: MarblesState,
  runId: string,
  name: string,
  data: unknown,
): Promise<RunInfo> {
  const { nextSeq } = await foldJournal(state.storage, runId)
  await engine.signal(runId, name, data)
  // The journal shows the run taking the signal before its record says it no longer waits: wait for both.
  for await (const record of followJournal(state.storage, runId, { signal: AbortSignal.timeout(30_000) })) {
    if (record.seq < nextSeq) continue
    const info = await engine.get(runId)
    // Resumed, or suspended anew (it took the signal and waits again): either is the answer.
    if (info && (info.status !== 'suspended' || (record.type === 'status' && record.status === 'suspended')))
      return info
  }
  return (await engine.get(runId))!
}
