import { createBlackboard } from './blackboard.js'
import type { KernelContext } from './context.js'
import { createContracts } from './contracts/contracts.js'
import { createMemory } from './memory/memory.js'
import { minisearchRetriever } from './minisearch/retriever.js'
import type { Retriever, SnapshotStore } from './retrieval.js'
import { createRunbooks } from './runbooks.js'
import { resolveConfig, type ConfigFile } from './schema/config.js'
import type { EventKind } from './schema/event.js'
import type { Storage, StorageProblem } from './storage.js'
import { safeTelemetry, storageTelemetry, type Telemetry } from './telemetry.js'
import { createTokenReport } from './token-report.js'

export interface KernelOptions {
  storage: Storage
  /** Default: `minisearchRetriever()`. */
  retriever?: Retriever
  /** The contents of a `config.json`, or a resolved `Config`: validated, defaults fill the rest. */
  config?: ConfigFile
  /** Default: events appended to the storage's log. Failures never reach the caller. */
  telemetry?: Telemetry
  /** The clock, for ids' `created`, expiry and event timestamps. */
  now?: () => Date
  /** The project root: relative paths in messages, and the base of `contract_validate { path }`. */
  root?: string
  /** Lets `contract_validate` read `path`; pass the host's file reader. */
  readFile?: (path: string) => Promise<string>
  /** Records that exist but cannot be read. Default: kept in `kernel.problems`. */
  onProblem?: (problem: StorageProblem) => void
}

/**
 * Compose the services over one storage and one retriever. Every consumer (MCP server, CLI, hooks,
 * an embedding agent) calls this from its composition root and nothing else.
 */
export function createKernel(options: KernelOptions) {
  const { storage } = options
  const retriever = options.retriever ?? minisearchRetriever()
  const config = resolveConfig(options.config)
  const now = options.now ?? (() => new Date())
  const problems: StorageProblem[] = []
  const telemetry = safeTelemetry(options.telemetry ?? storageTelemetry(storage))
  const ctx: KernelContext = {
    storage,
    retriever,
    config,
    now,
    root: options.root,
    readFile: options.readFile,
    onProblem: options.onProblem ?? ((p) => void (problems.some((q) => q.location === p.location) || problems.push(p))),
  }
  retriever.attach?.(snapshotStore(storage, `retriever/${retriever.name}/`))

  const memory = createMemory(ctx)
  const runbooks = createRunbooks(ctx)
  const contracts = createContracts(ctx)
  const blackboard = createBlackboard(ctx, contracts)
  const tokenReport = createTokenReport(ctx, memory, blackboard)

  /** Record an event; never throws. Hooks use it for `gate_blocked`, `subagent_return`, … */
  const record = (kind: EventKind, data?: Record<string, unknown>) =>
    telemetry.record(data ? { ts: now().toISOString(), kind, data } : { ts: now().toISOString(), kind })

  // Telemetry wraps the operations: the services themselves know nothing of it.
  const traced =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>, events: (result: R) => Array<[EventKind, Record<string, unknown>]>) =>
    async (...args: A): Promise<R> => {
      const result = await fn(...args)
      for (const [kind, data] of events(result)) await record(kind, data)
      return result
    }

  return {
    config,
    storage,
    retriever,
    /** Records found unreadable so far (when no `onProblem` was given). */
    problems,
    record,
    memory: {
      ...memory,
      write: traced(memory.write, (r) => [['memory_write', { action: r.action, id: r.id, ...(r.supersedes && { supersedes: r.supersedes }) }]]),
      search: traced(memory.search, (r) => [['memory_search', { hits: r.hits.length }]]),
    },
    runbooks,
    contracts: {
      ...contracts,
      validate: traced(contracts.validate, (r) => [
        r.valid ? ['contract_valid', { schema: r.schema }] : ['contract_violation', { schema: r.schema, violations: r.violations.length }],
      ]),
    },
    blackboard: {
      ...blackboard,
      write: traced(blackboard.write, (r) =>
        r.written ? [['blackboard_write', { path: r.path, tokens: r.tokens }]] : [['contract_violation', { violations: r.violations.length }]],
      ),
    },
    tokens: { report: tokenReport },
    /**
     * Release the retriever and the storage. Deferred snapshot work is persisted when the next process
     * would pay more to replay it from the storage's change log (a short-lived process that wrote a
     * fact or two leaves without writing a snapshot), and always when the storage has no change log.
     */
    async close() {
      await retriever.flush?.(!storage.flags.changeLog)
      await retriever.close?.()
      await storage.close?.()
    },
  }
}

export type Kernel = ReturnType<typeof createKernel>

const RELAXED = { durability: 'relaxed' } as const

/** A retriever's snapshots live in the storage's `meta` collection under a prefix. */
export function snapshotStore(storage: Storage, prefix: string): SnapshotStore {
  return {
    read: (name) => storage.get('meta', prefix + name),
    write: (name, text) => storage.put('meta', prefix + name, text, RELAXED),
    remove: async (name) => void (await storage.delete('meta', prefix + name, RELAXED)),
  }
}
