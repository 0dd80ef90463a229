import { blackboardPlugin, type BlackboardService } from './blackboard.js'
import { contractsPlugin, type ContractService } from './contracts/contracts.js'
import { isFoundryError } from './errors.js'
import { firewallPlugin, type FirewallService } from './firewall.js'
import { memoryPlugin } from './memory/memory.js'
import type { MemoryService } from './memory/service.js'
import { bm25Retriever } from './bm25/retriever.js'
import { DEFAULT_HINTS, type KernelHints, type KernelPlugin, type PluginHost, type TraceSpec } from './plugin.js'
import { promptContextPlugin, type PromptContextService } from './prompt/prompt-context.js'
import type { Retriever, SnapshotStore } from './retrieval.js'
import { reviewPlugin, type ReviewService } from './review/review.js'
import { runbooksPlugin, type RunbookService } from './runbooks.js'
import { resolveConfig, type Config, type ConfigFile } from './schema/config.js'
import type { EventKind, FoundryEvent } from './schema/event.js'
import type { Storage, StorageProblem } from './storage.js'
import { safeTelemetry, storageTelemetry, type Telemetry } from './telemetry.js'
import { tokensPlugin, type TokenService } from './token-report.js'
import { FoundryError } from './errors.js'
import { isoTime, monotonicMs } from './clock.js'

export interface KernelOptions {
  storage: Storage
  /** Default: `bm25Retriever()`. */
  retriever?: Retriever
  /** The contents of a `config.json` (the kernel's keys), or a resolved `Config`: validated, defaults fill the rest. */
  config?: ConfigFile
  /** Default: events appended to the storage's log. Failures never reach the caller. */
  telemetry?: Telemetry
  /**
   * Record events (a traced operation's, `record`'s) after the current turn of the event loop, not
   * before the call resolves: a server writes its answer first (`foundry mcp`). `close()` waits for
   * them. Default false: an event is written when its call resolves.
   */
  eventsAfterTurn?: boolean
  /** The clock, for ids' `created`, expiry and event timestamps. */
  now?: () => Date
  /** The project root: relative paths in messages, and the base of `contract_validate { path }`. */
  root?: string
  /** Lets `contract_validate` read `path`; pass the host's file reader. */
  readFile?: (path: string) => Promise<string>
  /** Records that exist but cannot be read. Default: ignored (they are left out of every answer). */
  onProblem?: (problem: StorageProblem) => void
  /** The host's words in the kernel's texts (see `KernelHints`). */
  hints?: Partial<KernelHints>
  /** More services, set up after the kernel's own; `kernel.use(plugin)` returns each. */
  plugins?: readonly KernelPlugin<string, object>[]
}

/**
 * The kernel: Foundry's services over one storage and one retriever. Every consumer (MCP server,
 * CLI, hooks, Marbles, an embedding agent) gets one from `createKernel` (or `@foundry/project`'s
 * `openProject`) and calls these; nothing else.
 */
export interface Kernel {
  /** The resolved configuration. */
  readonly config: Config
  /** Facts: write (dedup, supersede), search, the index, listing. */
  readonly memory: MemoryService
  readonly runbooks: RunbookService
  /** The built-in and project contracts, and validation against them. */
  readonly contracts: ContractService
  /** Wave artifacts, validated against their contract. */
  readonly blackboard: BlackboardService
  /** Token accounting. */
  readonly tokens: TokenService
  /** The context firewall: whether a subagent's return passes, and saving it when it does not. */
  readonly firewall: FirewallService
  /** The facts and runbooks worth adding to a user's prompt. */
  readonly promptContext: PromptContextService
  /** The review queue: proposed facts, accepted (through the memory write path), edited or rejected. */
  readonly review: ReviewService
  /** The service of a plugin: a built-in one or one passed in `plugins`. Throws NOT_FOUND for any other. */
  use<S extends object>(plugin: KernelPlugin<string, S>): S
  /** Record an event; never throws. Consumers name theirs `<consumer>.<kind>`. */
  record(kind: EventKind, data?: Record<string, unknown>): Promise<void>
  /**
   * Release the retriever and the storage. Deferred snapshot work is persisted when the next process
   * would pay more to replay it from the storage's change log, and always when the storage has no
   * change log.
   */
  close(): Promise<void>
}

/** The kernel's own services, each after the ones it needs (memory is set up with the kernel, the others on first use). */
export const BUILTIN_PLUGINS = [
  memoryPlugin,
  runbooksPlugin,
  contractsPlugin,
  blackboardPlugin,
  tokensPlugin,
  firewallPlugin,
  promptContextPlugin,
  reviewPlugin,
] as const

/** Compose the services over one storage and one retriever. */
export function createKernel(options: KernelOptions): Kernel {
  const { storage } = options
  const retriever = options.retriever ?? bm25Retriever()
  const config = resolveConfig(options.config)
  const now = options.now ?? (() => new Date())
  const telemetry = safeTelemetry(options.telemetry ?? storageTelemetry(storage))
  const events = options.eventsAfterTurn ? afterTurn(telemetry) : undefined
  const record = (kind: EventKind, data?: Record<string, unknown>) =>
    (events ?? telemetry).record(data ? { ts: isoTime(now()), kind, data } : { ts: isoTime(now()), kind })
  retriever.attach?.(snapshotStore(storage, `retriever/${retriever.name}/`))

  // Every plugin is checked here; memory and the plugins passed in are set up here, the other built-in
  // services on first use (a command that never touches contracts never builds them nor their schemas).
  const registered = new Set<KernelPlugin<string, object>>()
  const services = new Map<KernelPlugin<string, object>, object>()
  const names = new Set<string>()
  const use = <S extends object>(plugin: KernelPlugin<string, S>): S => {
    const key = plugin as KernelPlugin<string, object>
    if (!registered.has(key))
      throw new FoundryError(
        'NOT_FOUND',
        `No plugin "${plugin.name}" in this kernel: pass it in createKernel({ plugins })`,
      )
    let service = services.get(key)
    if (!service) services.set(key, (service = setUp(key)))
    return service as S
  }
  const host: PluginHost = {
    storage,
    retriever,
    config,
    now,
    root: options.root,
    readFile: options.readFile,
    onProblem: options.onProblem ?? (() => {}),
    hints: { ...DEFAULT_HINTS, ...options.hints },
    record,
    use,
  }
  const setUp = (plugin: KernelPlugin<string, object>): object => {
    const needs: readonly KernelPlugin<string, object>[] = plugin.needs ?? []
    const service = plugin.setup({
      ...host,
      use: (p) =>
        needs.includes(p as KernelPlugin<string, object>)
          ? host.use(p)
          : refuse(plugin, p as KernelPlugin<string, object>),
    })
    return traced(service, plugin.trace ?? {}, record)
  }
  const added = (options.plugins ?? []) as KernelPlugin<string, object>[]
  for (const plugin of [...BUILTIN_PLUGINS, ...added] as KernelPlugin<string, object>[]) {
    if (names.has(plugin.name))
      throw new FoundryError('CONFLICT', `Two kernel plugins are named "${plugin.name}": rename one`)
    for (const need of plugin.needs ?? [])
      if (!registered.has(need))
        throw new FoundryError(
          'INVALID_INPUT',
          `Plugin "${plugin.name}" needs "${need.name}": list "${need.name}" before it in plugins`,
        )
    names.add(plugin.name)
    registered.add(plugin)
  }
  for (const plugin of [memoryPlugin, ...added] as KernelPlugin<string, object>[]) use(plugin)

  return {
    config,
    memory: use(memoryPlugin),
    get runbooks() {
      return use(runbooksPlugin)
    },
    get contracts() {
      return use(contractsPlugin)
    },
    get blackboard() {
      return use(blackboardPlugin)
    },
    get tokens() {
      return use(tokensPlugin)
    },
    get firewall() {
      return use(firewallPlugin)
    },
    get promptContext() {
      return use(promptContextPlugin)
    },
    get review() {
      return use(reviewPlugin)
    },
    use,
    record,
    async close() {
      await events?.settled()
      await retriever.flush?.(!storage.flags.changeLog)
      await retriever.close?.()
      await storage.close?.()
    },
  }
}

function refuse(plugin: KernelPlugin<string, object>, wanted: KernelPlugin<string, object>): never {
  throw new FoundryError('INVALID_INPUT', `Plugin "${plugin.name}" uses "${wanted.name}" without listing it in needs`)
}

/** The clock for durations. */
const clock = monotonicMs

/**
 * The service with each traced operation wrapped: the call runs, then one event records its kind,
 * duration and outcome (`ok`, or the error's code; other errors are `ERROR`), and the error, if
 * any, is rethrown unchanged. Untraced members pass through.
 */
function traced<S extends object>(
  service: S,
  trace: { [M in keyof S]?: TraceSpec<S[M]> },
  record: PluginHost['record'],
): S {
  const out = { ...service } as Record<string, unknown>
  for (const [method, spec] of Object.entries(trace) as Array<[string, TraceSpec<never> | undefined]>) {
    const fn = out[method]
    if (typeof fn !== 'function' || spec === undefined) continue
    const { kind, data, kindOf } = typeof spec === 'string' ? { kind: spec, data: undefined, kindOf: undefined } : spec
    out[method] = async (...args: unknown[]) => {
      const start = clock()
      try {
        const result = await (fn as (...a: unknown[]) => Promise<never>)(...args)
        await record(kindOf?.(result) ?? kind, { ...data?.(result), ms: round(clock() - start), status: 'ok' })
        return result
      } catch (error) {
        await record(kind, { ms: round(clock() - start), status: isFoundryError(error) ? error.code : 'ERROR' })
        throw error
      }
    }
  }
  return out as S
}

const round = (ms: number) => Math.round(ms * 100) / 100

/**
 * `telemetry`, deferred: each event is recorded once the current turn of the event loop is over
 * (a timer), in call order; `settled` resolves once every event asked for so far is recorded.
 */
function afterTurn(telemetry: Telemetry): Telemetry & { settled(): Promise<void> } {
  let written = Promise.resolve()
  let waiting: FoundryEvent[] = []
  const drain = () => {
    const batch = waiting
    waiting = []
    for (const event of batch) written = written.then(() => telemetry.record(event))
  }
  return {
    async record(event) {
      if (!waiting.length) setTimeout(drain, 0)
      waiting.push(event)
    },
    async settled() {
      drain()
      await written
    },
  }
}

const RELAXED = { durability: 'relaxed' } as const

/** A retriever's snapshots live in the storage's `meta` collection under a prefix, written relaxed (they are rebuilt when lost). */
export function snapshotStore(storage: Storage, prefix: string): SnapshotStore {
  return {
    read: (name) => storage.get('meta', prefix + name),
    write: (name, text) => storage.put('meta', prefix + name, text, RELAXED),
    remove: async (name) => void (await storage.delete('meta', prefix + name, RELAXED)),
  }
}
