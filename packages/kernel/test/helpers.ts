import { createKernel, memoryStorage, type ConfigFile, type KernelOptions } from '../src/index.js'

/** A kernel on the reference storage with a clock that advances one second per call. */
export function kernelFor(config: ConfigFile = {}, options: Partial<KernelOptions> = {}) {
  let t = Date.parse('2026-11-30T12:00:00Z')
  const storage = options.storage ?? memoryStorage()
  return createKernel({ now: () => new Date((t += 1000)), root: '/home/me/project', ...options, storage, config })
}

export const decision = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  body: `Chosen for a reason.\nWhy: the team reads plain SQL.\nHow to apply: write migrations as SQL files.`,
  type: 'decision',
  ...extra,
})
