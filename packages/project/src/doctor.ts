import { join } from 'node:path'
import { buildIndex, dayOf, INDEX_KEY, isFoundryError, type Fact } from '@foundry/kernel'
import type { DoctorFinding } from '@foundry/kernel/adapter'
import { readProjectConfig } from './config.js'
import { DATA_FOLDER } from './find.js'
import { locateProject } from './locate.js'
import { openProject, sameStorage, type OpenProjectOptions } from './open.js'
import { builtinRegistry, resolveAdapter, withAdapterModules } from './registry.js'

export interface DoctorOptions extends Pick<OpenProjectOptions, 'root' | 'cwd' | 'overrides' | 'now'> {
  /** Repair what can be repaired without losing a record; without it, only report. */
  fix?: boolean
}

export interface DoctorReport {
  root: string
  /** The storage kind checked. */
  storage: string
  /** What was found and done, in the order checked. */
  findings: DoctorFinding[]
  /** No finding needs fixing (every one a note, or fixed). */
  healthy: boolean
}

/**
 * `foundry doctor`: the storage's own checks (its descriptor's `doctor`, run before the storage is
 * opened, so that a stale lock or a bad cache is seen as it is), then INDEX.md against the facts,
 * through the kernel. With `fix`, what can be repaired is, in that order: the index is rebuilt
 * after the files were repaired.
 */
export async function doctorProject(options: DoctorOptions = {}): Promise<DoctorReport> {
  const root = locateProject(options)
  const file = await readProjectConfig(root)
  const registry = await withAdapterModules(builtinRegistry(), file.adapters, root, file.file)
  const storage = await resolveAdapter(registry, 'storage', sameStorage(file, options.overrides?.storage), file.file)
  const site = { root, dataDir: join(root, DATA_FOLDER) }
  const fix = options.fix ?? false
  const findings: DoctorFinding[] = storage.descriptor.doctor
    ? [...(await storage.descriptor.doctor(storage.choice.options, site, { fix }))]
    : [{ status: 'note', check: 'storage', message: `storage "${storage.choice.kind}" has no checks of its own` }]

  const project = await openProject({ ...options, root, onProblem: () => {} })
  try {
    findings.push(...(await checkIndex(project, fix)))
  } finally {
    await project.close()
  }
  return {
    root,
    storage: storage.choice.kind,
    findings,
    healthy: findings.every((f) => f.status === 'note' || f.status === 'fixed'),
  }
}

/**
 * INDEX.md as the facts say it should be today. The facts are read one by one (`keys` and `get`),
 * not listed, so a check changes nothing: a listing sweeps temporary files and saves caches.
 */
async function checkIndex(project: Awaited<ReturnType<typeof openProject>>, fix: boolean): Promise<DoctorFinding[]> {
  const { storage, kernel } = project
  const facts: Fact[] = []
  for (const key of await storage.keys('facts')) {
    try {
      const fact = await storage.get('facts', key)
      if (fact) facts.push(fact)
    } catch (error) {
      if (!isFoundryError(error) || error.code !== 'CORRUPT') throw error // reported by the storage's checks
    }
  }
  const path = storage.locate?.('meta', INDEX_KEY)
  const expected = buildIndex(facts, kernel.config.indexTokenBudget, dayOf(new Date())).text
  const stored = await storage.get('meta', INDEX_KEY)
  if (stored === expected || (stored === undefined && facts.length === 0)) return []
  const problem = stored === undefined ? 'INDEX.md is missing' : 'INDEX.md is out of date with the facts'
  if (!fix) return [{ status: 'problem', check: 'index', ...(path && { path }), message: problem }]
  await kernel.memory.index()
  return [
    {
      status: 'fixed',
      check: 'index',
      ...(path && { path }),
      message: `${problem}: rebuilt (${facts.length} facts read)`,
    },
  ]
}
