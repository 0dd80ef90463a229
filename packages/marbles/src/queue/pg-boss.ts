import { createHash } from 'node:crypto'
import type { JobWithMetadata, PgBoss as Boss } from 'pg-boss'
import type { JobRef, RunQueue, WorkOptions } from './queue.js'

export interface PgBossQueueOptions {
  /** The PostgreSQL server (the project's storage URL). Never printed: messages name the host only. */
  url: string
  /** The schema pg-boss keeps its tables in. Default `marbles_jobs`. */
  schema?: string
  /** `true` for a process that executes runs (`marbles worker`, `serve`): it also expires jobs of dead workers. Default false (dispatch only). */
  supervise?: boolean
  /** How often a supervising process looks for expired jobs and lost heartbeats, in seconds. Default 2. */
  superviseIntervalSeconds?: number
  /** A worker that stops beating for this long (killed, frozen) loses its job: retried or failed. Default 10 (pg-boss's least). */
  heartbeatSeconds?: number
  /** How often a worker beats, and so how soon it learns its job was cancelled, in seconds. Default 1. */
  heartbeatRefreshSeconds?: number
  /** Connections held. Default 4. */
  poolSize?: number
  /** Where pg-boss's errors go. Default: stderr. */
  log?: (line: string) => void
}

/** Jobs whose run failed for good (retries exhausted, expired) land here; workers settle their runs. */
export const DEAD_QUEUE = 'marbles/dead'

/** A run queue on pg-boss: one queue per workflow (`marbles/<name>`), jobs `{ runId }`, a shared dead-letter queue. */
export async function pgBossQueue(options: PgBossQueueOptions): Promise<RunQueue> {
  const boss = await startBoss(options)
  const heartbeatSeconds = options.heartbeatSeconds ?? 10
  const ensureQueue = queueMaker(boss)
  const cancelled = async (ref: JobRef): Promise<boolean> => {
    const [job] = await boss.findJobs(ref.queue, { id: ref.id }).catch(() => [])
    return job?.state === 'cancelled'
  }
  const why = (output: unknown): string | undefined => {
    if (!output || typeof output !== 'object') return undefined
    const o = output as { value?: { message?: string }; message?: string }
    return o.value?.message ?? o.message ?? JSON.stringify(output)
  }
  const workers: string[] = []
  let closed = false

  return {
    kind: 'pg-boss',
    jobRef(workflow, runId, key) {
      return { queue: queueName(workflow), id: jobId(`${runId}/${key}`) }
    },
    async enqueue(job, policy) {
      await ensureQueue(job.queue)
      await boss.send(
        job.queue,
        { runId: job.runId },
        {
          id: job.id,
          retryLimit: policy.retryLimit,
          retryDelay: 0,
          expireInSeconds: policy.expireInSeconds,
          heartbeatSeconds,
          deadLetter: DEAD_QUEUE,
          ...(policy.startAfter && { startAfter: policy.startAfter }),
        },
      )
    },
    async cancel(ref) {
      await boss.cancel(ref.queue, ref.id).catch(() => {}) // an unknown queue or job: nothing to cancel
    },
    async work(workflows, work: WorkOptions, handler) {
      const take = async (queue: string, dead: boolean, concurrency: number) => {
        await ensureQueue(queue)
        const workOptions = {
          includeMetadata: true,
          batchSize: 1,
          localConcurrency: concurrency,
          pollingIntervalSeconds: 0.5,
          notifyPollingIntervalSeconds: 5,
          heartbeatRefreshSeconds: options.heartbeatRefreshSeconds ?? 1,
        } as const
        const id = await boss.work<{ runId: string }, void, typeof workOptions>(
          queue,
          workOptions,
          async ([job]: JobWithMetadata<{ runId: string }>[]) => {
            if (!job || typeof job.data?.runId !== 'string') return
            const previous = why(dead ? job.sourceOutput : job.output)
            // pg-boss waits its poll interval after each job; with a backlog, fetch the next one now.
            const next = () => {
              for (const w of boss.getWipData()) if (w.name === queue) boss.notifyWorker(w.id)
            }
            await handler({
              runId: job.data.runId,
              attempt: job.retryCount,
              ...(previous !== undefined && { previous }),
              dead,
              signal: job.signal,
              cancelled: () => cancelled({ queue, id: job.id }),
              held: async () => {
                try {
                  const touched = (await boss.touch(queue, { id: job.id, retryCount: job.retryCount })) as {
                    affected?: number
                  }
                  return (touched.affected ?? 1) > 0
                } catch {
                  return true // a heartbeat that could not run says nothing about the claim
                }
              },
            }).finally(next)
          },
        )
        workers.push(id)
      }
      for (const name of workflows) await take(queueName(name), false, work.concurrency ?? 4)
      await take(DEAD_QUEUE, true, 1)
    },
    async stop(graceMs) {
      if (closed) return
      closed = true
      await boss.stop({ graceful: true, timeout: Math.max(1000, graceMs), close: true }).catch(() => {})
    },
    async close() {
      if (closed) return
      closed = true
      await boss.stop({ graceful: false, close: true }).catch(() => {})
    },
  }
}

/** pg-boss on the server, started; its errors logged once each, never with the password. */
async function startBoss(options: PgBossQueueOptions): Promise<Boss> {
  const { PgBoss } = await import('pg-boss')
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
  const supervise = options.supervise ?? false
  const boss: Boss = new PgBoss({
    connectionString: options.url,
    schema: options.schema ?? 'marbles_jobs',
    application_name: 'marbles',
    max: options.poolSize ?? 4,
    supervise,
    schedule: false,
    useListenNotify: true,
    ...(supervise && {
      superviseIntervalSeconds: options.superviseIntervalSeconds ?? 2,
      monitorIntervalSeconds: options.superviseIntervalSeconds ?? 2,
    }),
  })
  let lastError = ''
  boss.on('error', (error: Error) => {
    // One line per distinct error: a server that went away is reported once, not every poll.
    if (error.message !== lastError) log(`marbles: job queue: ${redact(error.message, options.url)}`)
    lastError = error.message
  })
  try {
    await boss.start()
  } catch (error) {
    await boss.stop({ graceful: false }).catch(() => {})
    throw new Error(
      `Cannot start the job queue on ${host(options.url)}: ${redact((error as Error).message, options.url)}`,
      { cause: error },
    )
  }

  return boss
}

/** `ensureQueue(name)`: create the queue once (and the dead-letter queue first), tolerating another process creating it meanwhile. */
function queueMaker(boss: Boss): (name: string) => Promise<void> {
  const created = new Map<string, Promise<void>>()
  const ensureQueue = (name: string): Promise<void> => {
    let made = created.get(name)
    if (!made) {
      made = (async () => {
        if (name !== DEAD_QUEUE) await ensureQueue(DEAD_QUEUE)
        if (await boss.getQueue(name)) return
        try {
          await boss.createQueue(name, { notify: true, ...(name !== DEAD_QUEUE && { deadLetter: DEAD_QUEUE }) })
        } catch (error) {
          if (!(await boss.getQueue(name))) throw error // else another process created it first
        }
      })()
      made.catch(() => created.delete(name))
      created.set(name, made)
    }
    return made
  }
  return ensureQueue
}

/** A workflow's queue: `marbles/<name>`, characters pg-boss refuses (an agent run's `:`) as `_`. */
export const queueName = (workflow: string) => `marbles/${workflow.replace(/[^\w.\-/]/g, '_')}`

/** A UUID derived from `key` (SHA-256, version 8): the same run and key always name the same job. */
export function jobId(key: string): string {
  const h = createHash('sha256').update(key).digest()
  h[6] = (h[6]! & 0x0f) | 0x80
  h[8] = (h[8]! & 0x3f) | 0x80
  const x = h.subarray(0, 16).toString('hex')
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`
}

function host(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`
  } catch {
    return 'the configured server'
  }
}

/** Never a password in a message. */
function redact(message: string, url: string): string {
  let out = message.split(url).join(host(url))
  try {
    const password = decodeURIComponent(new URL(url).password)
    if (password) out = out.split(password).join('***')
  } catch {
    // not a URL: nothing to hide
  }
  return out
}
