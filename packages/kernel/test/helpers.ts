import {
  createKernel,
  memoryStorage,
  type ConfigFile,
  type Kernel,
  type Storage,
  type StorageProblem,
} from '../src/index.js'
import type { KernelOptions } from '../src/kernel.js'

/**
 * A kernel on the reference storage with a clock that advances one second per call. The storage
 * (no longer part of the kernel's surface) and the problems reported are returned beside it.
 */
export function kernelFor(
  config: ConfigFile = {},
  options: Partial<KernelOptions> = {},
): Kernel & { storage: Storage; problems: StorageProblem[] } {
  let t = Date.parse('2026-11-30T12:00:00Z')
  const storage = options.storage ?? memoryStorage()
  const problems: StorageProblem[] = []
  const kernel = createKernel({
    now: () => new Date((t += 1000)),
    root: '/home/me/project',
    onProblem: (p) => void (problems.some((q) => q.location === p.location) || problems.push(p)),
    ...options,
    storage,
    config,
  })
  return Object.assign(kernel, { storage, problems })
}

export const decision = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  body: `Chosen for a reason.\nWhy: the team reads plain SQL.\nHow to apply: write migrations as SQL files.`,
  type: 'decision',
  ...extra,
})
