import type { Retriever } from './retrieval.js'
import type { Config } from './schema/config.js'
import type { EventKind } from './schema/event.js'
import type { Storage, StorageProblem } from './storage.js'

/**
 * A kernel plugin: a named service built over the host's storage, retriever and configuration.
 * The kernel's own services (memory, runbooks, contracts, blackboard, tokens, firewall,
 * promptContext) are plugins, and a consumer adds its own the same way:
 *
 * ```ts
 * const notes = definePlugin({
 *   name: 'notes',
 *   setup: (host) => ({ add: (text: string) => host.storage.appendLog('notes/all', [text]) }),
 *   trace: { add: 'notes.add' },
 * })
 * const kernel = createKernel({ storage, plugins: [notes] })
 * await kernel.use(notes).add('hello') // records a `notes.add` event with its duration and outcome
 * ```
 */
export interface KernelPlugin<Name extends string = string, Service extends object = object> {
  /** Unique within a kernel; a consumer's plugin names itself after the consumer (`marbles`). */
  readonly name: Name
  /** Plugins this one uses through `host.use`; they are set up first. A missing one is an error at `createKernel`. */
  readonly needs?: readonly KernelPlugin<string, object>[]
  /**
   * Build the service. Called once: by `createKernel` for memory and the plugins passed in, on first use
   * for the kernel's other services; must not do I/O (the first operation may).
   */
  setup(host: PluginHost): Service
  /**
   * The service's operations and the event kind each records: the kernel wraps them, so every call
   * records its duration (`ms`) and outcome (`status`: `ok`, or the error code) without the service knowing.
   * A function form adds fields from the result (it runs only when the call succeeded).
   */
  readonly trace?: { [M in keyof Service]?: TraceSpec<Service[M]> }
}

type Resolved<F> = F extends (...args: never[]) => Promise<infer R> ? R : never
/**
 * An operation's event kind; or its kind plus the fields its result adds (`data`), and, for an
 * operation whose result decides the kind (a validation: `contract_valid` or `contract_violation`),
 * `kindOf`. A failed call always records `kind`.
 */
export type TraceSpec<F> =
  | EventKind
  | {
      kind: EventKind
      data?: (result: Resolved<F>) => Record<string, unknown>
      kindOf?: (result: Resolved<F>) => EventKind
    }

/** What a plugin's `setup` receives: the kernel's parts, and the services of the plugins it needs. */
export interface PluginHost {
  readonly storage: Storage
  readonly retriever: Retriever
  readonly config: Config
  /** The clock: ids' `created`, expiry and event timestamps. */
  now(): Date
  /** The project root, for relative paths in messages and `contract_validate`'s `path`; absent when embedded without one. */
  readonly root: string | undefined
  /** Reads a file for `contract_validate { path }`; absent in hosts without a filesystem. */
  readonly readFile: ((path: string) => Promise<string>) | undefined
  /** Records that exist but cannot be read: reported here, then left out. */
  onProblem(problem: StorageProblem): void
  /** Words of the host's own product in the kernel's texts (see `KernelHints`). */
  readonly hints: KernelHints
  /** Record an event; never throws, never rejects. */
  record(kind: EventKind, data?: Record<string, unknown>): Promise<void>
  /** The service of a plugin listed in `needs`. */
  use<S extends object>(plugin: KernelPlugin<string, S>): S
}

/**
 * The few places where a kernel text points the user at the host's own tools. The kernel's defaults
 * name none; the Foundry CLI and MCP server pass the seed's wording (`@foundry/project`).
 */
export interface KernelHints {
  /** Appended to `runbook_list`'s text when there are no runbooks. */
  noRunbooks: string
  /** Appended to a NOT_FOUND for an unknown fact id: how to list the ids. */
  listFacts: string
  /** The last line of the token accounting: where billed usage is. */
  billedUsage: string
}

export const DEFAULT_HINTS: KernelHints = {
  noRunbooks: 'Write one after any task worth repeating.',
  listFacts: 'List the ids with memory.list({ status: "all" }).',
  billedUsage: 'For billed usage, see your model provider.',
}

/** Declare a plugin with its service type inferred. */
export function definePlugin<Name extends string, Service extends object>(
  plugin: KernelPlugin<Name, Service>,
): KernelPlugin<Name, Service> {
  return plugin
}
