import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openProject } from '@foundry/project'
import type { FactInput } from '@foundry/kernel'

/** The batch path's largest call, as the MCP `memory_write` with `facts` takes it. */
const BATCH = 500

/**
 * A project of `facts` written through the kernel's batch path (`writeMany`, 500 a call, the call
 * `memory_write` with `facts` makes) in this process, closed (the retriever's snapshot written). `init`
 * makes the empty project first.
 */
export async function seedBatch(dir: string, facts: FactInput[], init: (dir: string) => void): Promise<number> {
  init(dir)
  const start = performance.now()
  const project = await openProject({ root: dir })
  try {
    for (let i = 0; i < facts.length; i += BATCH) await project.kernel.memory.writeMany(facts.slice(i, i + BATCH))
  } finally {
    await project.close()
  }
  return (performance.now() - start) / 1000
}

/**
 * `dir` holding a copy of a seeded project kept between runs under the system's temporary folder
 * (`foundry-bench-seeds/<key>`), seeded once: a 100k seed takes minutes, and two builds measured on
 * the same copy compare the same data. Remove the folder to seed anew (a storage format change).
 */
export async function seededCopy(
  key: string,
  dir: string,
  seed: (dir: string) => Promise<number>,
): Promise<{ seconds: number; reused: boolean }> {
  const kept = join(tmpdir(), 'foundry-bench-seeds', key)
  let seconds = 0
  const reused = existsSync(kept)
  if (!reused) {
    const building = `${kept}.${process.pid}`
    rmSync(building, { recursive: true, force: true })
    mkdirSync(building, { recursive: true })
    seconds = await seed(building)
    renameSync(building, kept)
  }
  cpSync(kept, dir, { recursive: true })
  return { seconds, reused }
}
