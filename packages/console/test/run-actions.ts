// The app's part in the console's tests: run actions over the project's real storage, recording runs
// as Marbles does (a record in `marbles.runs`, status entries in the `marbles/<runId>` journal). The
// console cannot import Marbles; the `foundry` app's tests drive the real engine behind the same routes.
import { FoundryError, validator, type JsonValue } from '@foundry/kernel'
import type { Project } from '@foundry/project'
import type { RunActions } from '../src/index.js'

/** The input schema of the one workflow: every kind of field the form draws, and one it cannot (a raw-JSON box). */
export const DEPLOY_INPUT = {
  type: 'object',
  required: ['service'],
  properties: {
    service: { type: 'string', minLength: 1, description: 'The service to ship' },
    replicas: { type: 'integer', minimum: 1 },
    canary: { type: 'boolean', description: 'Ship to one replica first' },
    region: { enum: ['eu-west', 'us-east'] },
    notify: { type: 'object', properties: { channel: { type: 'string' } } },
    tags: { type: 'array', items: { type: 'string' } },
  },
} as const

const ENDED = ['complete', 'failed', 'cancelled']

export function storageRunActions(project: Project): RunActions {
  const { storage } = project
  let made = 0
  const check = validator(DEPLOY_INPUT)

  /** The run's record, and a status entry in its journal (the first one carries the input). */
  async function record(runId: string, status: string, fields: Record<string, JsonValue> = {}): Promise<void> {
    const now = Date.now()
    const old = (await storage.get('marbles.runs', runId)) as Record<string, JsonValue> | undefined
    const log = `marbles/${runId}`
    const seq = (await storage.readLog(log, 0)).entries.length
    await storage.appendLog(log, [JSON.stringify({ seq, at: now, type: 'status', status, ...fields })])
    const { input: _input, ...kept } = fields
    await storage.put('marbles.runs', runId, {
      ...old,
      id: runId,
      status,
      createdAt: old?.createdAt ?? now,
      updatedAt: now,
      ...kept,
    })
  }

  async function start(input: JsonValue, rerunOf?: string) {
    const runId = `run-${Date.now().toString(36)}-${++made}`
    await record(runId, 'queued', { name: 'deploy', input, ...(rerunOf && { rerunOf }) })
    await record(runId, 'running')
    return { runId, name: 'deploy', status: 'queued', ...(rerunOf && { rerunOf }) }
  }

  return {
    async workflows() {
      return [{ name: 'deploy', description: 'Ship a service to a region.', inputSchema: DEPLOY_INPUT }]
    },
    async dispatch(name, input) {
      if (name !== 'deploy') throw new FoundryError('NOT_FOUND', `No workflow or step named "${name}"; known: deploy`)
      return start(check.parse(input, 'input of workflow deploy') as JsonValue)
    },
    async cancel(runId) {
      const run = (await storage.get('marbles.runs', runId)) as { status?: string } | undefined
      if (!run) throw new FoundryError('NOT_FOUND', `run ${runId}: no such run`)
      if (ENDED.includes(run.status ?? '')) return { runId, status: run.status! }
      await record(runId, 'cancelled', { reason: 'cancelled by request' })
      return { runId, status: 'cancelled' }
    },
    async rerun(runId) {
      const first = (await storage.readLog(`marbles/${runId}`, 0)).entries[0]
      const run = (await storage.get('marbles.runs', runId)) as { status?: string } | undefined
      if (!first || !run) throw new FoundryError('NOT_FOUND', `runId: no run ${runId}`)
      if (!ENDED.includes(run.status ?? ''))
        throw new FoundryError(
          'CONFLICT',
          `run ${runId} is ${run.status}: re-run a run once it has ended (cancel it first)`,
        )
      return start((JSON.parse(first) as { input?: JsonValue }).input ?? {}, runId)
    },
  }
}
