import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ProjectContext } from '@foundry/project'
import { findInstalledBin } from '@foundry/project/find'
import type { CommonInput } from './input.js'

/** The package that declares the `marbles` bin (installed with `@foundry/cli`), which runs the capture. */
export const MARBLES_PACKAGE = '@foundry/marbles'

/**
 * The `marbles` bin: resolved from the project root (the copy the project installed), from the bin
 * this process runs (`foundry-hook` installed beside it), then from this module. Undefined when none
 * finds it.
 */
export function resolveMarblesBin(root: string): string | undefined {
  const bases = [join(root, 'package.json'), ...(process.argv[1] ? [process.argv[1]] : []), ...thisModule()]
  return findInstalledBin(MARBLES_PACKAGE, 'marbles', bases)
}

/** This module's path; none in a bundle where `import.meta.url` is not kept (the bins' cached scripts). */
function thisModule(): string[] {
  try {
    return [fileURLToPath(import.meta.url)]
  } catch {
    return []
  }
}

/**
 * Capture from sessions (`capture.enabled` in config.json): start `marbles distill <transcript>`
 * detached, so the hook returns at once and the run outlives it. The run reads the transcript since
 * the last capture and queues the facts it finds for review. Records `hooks.capture` with whether it
 * started; never throws (a hook must not fail the session for it).
 */
export async function startCapture(input: CommonInput, project: ProjectContext): Promise<void> {
  if (!project.config.capture.enabled || !input.transcript_path) return
  const bin = resolveMarblesBin(project.root)
  if (!bin)
    return void (await project.kernel.record('hooks.capture', {
      started: false,
      reason: `${MARBLES_PACKAGE} is not installed`,
    }))
  try {
    const args = [
      bin,
      '--root',
      project.root,
      'distill',
      input.transcript_path,
      ...(input.session_id ? ['--session', input.session_id] : []),
    ]
    const child = spawn(process.execPath, args, {
      cwd: project.root,
      detached: true,
      stdio: 'ignore',
      windowsHide: true,
    })
    child.on('error', () => {})
    child.unref()
    await project.kernel.record('hooks.capture', {
      started: true,
      event: input.hook_event_name,
      sessionId: input.session_id,
    })
  } catch (error) {
    await project.kernel.record('hooks.capture', { started: false, reason: (error as Error).message })
  }
}
