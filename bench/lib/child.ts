import { spawn } from 'node:child_process'

/** A node process run to its end with `args` (and `env` over this process's): its wall time and stdout; a non-zero exit rejects with its stderr. */
export function runNode(args: string[], env: Record<string, string> = {}): Promise<{ wall: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0
        ? resolve({ wall: performance.now() - started, stdout })
        : reject(new Error(`child exited ${code}: ${stderr.slice(0, 500)}`)),
    )
  })
}
