import { join, resolve } from 'node:path'
import { createKernel, FoundryError, memoryStorage, type Kernel, type Storage } from '@foundry/kernel'
import { openProject, openTarget, tracesUrl, type Project } from '@foundry/project'
import { findProjectRoot } from '@foundry/project/find'
import { resolveMarblesConfig } from './marbles-config.js'
import type { RunQueue } from './queue/queue.js'

export interface StateOptions {
  /** `--root`: the project (default `FOUNDRY_ROOT`, else the nearest `.foundry/` above the current folder). */
  root?: string
  /** `--state PATH`: runs and journals in a folder (folder layout) or a `.db` file (SQLite). Default: the project's storage. */
  state?: string
  /** `--artifacts PATH`: large outputs in another folder or `.db` file. Default: the state. */
  artifacts?: string
  /** `--dry-run`: everything in memory; nothing is saved, and no project is needed. */
  dryRun?: boolean
  /** Whether workflows will run (they need the project's kernel). False for watch, runs, cancel. */
  needKernel?: boolean
  cwd?: string
}

/** Where an engine keeps its runs, its journals and its artifacts, and the kernel its workflows get. */
export interface MarblesState {
  /** Runs and journals; when tracing is configured, its journal writes also become spans (telemetry/tracing.ts). */
  storage: Storage
  artifacts: Storage
  kernel: Kernel
  /** The project's root; the current folder's project root or the current folder without one. */
  root: string
  /** What the state is, for messages. */
  where: string
  /** config.json's `marbles.concurrency`: runs the lease holder executes at once. */
  concurrency?: number
  /** config.json's `marbles.retention`, in ms: finished runs older than this are pruned. */
  retentionMs?: number
  /** Where the project's team tokens live (`tokenBook`): its token file, or its storage when that is networked. */
  tokenSite: { root: string; storage: Storage; networked?: boolean }
  /**
   * The job queue runs are dispatched through, when the state is on PostgreSQL (the project's storage
   * `{ kind: "postgres" }`, `--state postgres://…`) or `MARBLES_QUEUE_URL` names a server: pg-boss,
   * loaded and started on first use, closed with the state. Undefined otherwise (the lease engine).
   * `supervise`: this process executes runs, so it also expires the jobs of dead workers.
   */
  queue(supervise?: boolean): Promise<RunQueue | undefined>
  close(): Promise<void>
}

/** The OpenTelemetry packages tracing needs (optional peers of this package). */
const OTEL_SDK = [
  '@opentelemetry/sdk-trace@3',
  '@opentelemetry/resources@3',
  '@opentelemetry/exporter-trace-otlp-http@0.301',
]

/** Open the state the CLI's options name. Opens the project (through `@foundry/project`) unless `--state` alone suffices. */
export async function openState(options: StateOptions): Promise<MarblesState> {
  const cwd = options.cwd ?? process.cwd()
  if (options.dryRun) {
    const storage = memoryStorage()
    const kernel = createKernel({ storage })
    const root = options.root ? resolve(options.root) : (findProjectRoot(cwd) ?? cwd)
    return {
      storage,
      artifacts: storage,
      kernel,
      root,
      where: 'memory (--dry-run: nothing is saved)',
      tokenSite: { root, storage },
      queue: async () => undefined,
      close: () => kernel.close(),
    }
  }
  const opened: Array<{ close?(): Promise<void> }> = []
  try {
    let project: Project | undefined
    if (options.state === undefined || options.needKernel) {
      project = await openProject({ ...(options.root !== undefined && { root: options.root }), cwd })
      opened.push(project)
    }
    let target: Awaited<ReturnType<typeof openTarget>> | undefined
    if (options.state !== undefined) {
      target = await openTarget(options.state)
      opened.unshift(target.storage)
    }
    let storage = target?.storage ?? project!.storage
    const artifacts = options.artifacts !== undefined ? (await openTarget(options.artifacts)).storage : storage
    if (options.artifacts !== undefined) opened.unshift(artifacts)
    const kernel = project?.kernel ?? createKernel({ storage })
    // Tracing, when configured (config.json's `tracing`, OTEL_EXPORTER_OTLP_*): the journal's writes become spans.
    const traces = project ? project.tracesUrl : tracesUrl()
    if (traces) {
      const { traceRuns } = await import('./telemetry/tracing.js').catch((error: unknown) => {
        // The SDK is an optional peer (it declares Node 22): installing it is what turns tracing on.
        throw new FoundryError(
          'UNSUPPORTED',
          `tracing is configured (${traces}) but the OpenTelemetry SDK is not installed: npm i ${OTEL_SDK.join(' ')}, or remove the tracing setting`,
          { cause: error },
        )
      })
      const tracing = traceRuns(storage, traces)
      storage = tracing.storage
      opened.unshift({ close: tracing.close })
    }
    const settings = project ? resolveMarblesConfig(project.marbles, join(project.dataDir, 'config.json')) : {}
    const root = project?.root ?? cwd
    // Where the job queue lives: MARBLES_QUEUE_URL, else beside the state when its storage can host one, else none (the lease engine).
    const url = process.env.MARBLES_QUEUE_URL || (target ? target.queueUrl : project?.queueUrl)
    let queue: Promise<RunQueue> | undefined
    return {
      storage,
      artifacts,
      kernel,
      root,
      where: target ? (target.path ?? `the ${target.title} state`) : `the project at ${root}`,
      ...settings,
      tokenSite: project
        ? { root, storage: project.storage, ...(project.networked && { networked: true }) }
        : { root, storage },
      queue(supervise = false) {
        if (!url) return Promise.resolve(undefined)
        if (!queue) {
          queue = import('./queue/pg-boss.js').then(({ pgBossQueue }) => pgBossQueue({ url, supervise }))
          opened.unshift({ close: async () => (await queue!.catch(() => undefined))?.close() })
        }
        return queue
      },
      async close() {
        // Closing may wait on sockets a storage unref'd (PostgreSQL's change listener): keep the process up until it is done.
        const keep = setInterval(() => {}, 1 << 30)
        try {
          for (const item of opened) await item.close?.()
        } finally {
          clearInterval(keep)
        }
      },
    }
  } catch (error) {
    for (const item of opened) await item.close?.().catch(() => {})
    throw error
  }
}
