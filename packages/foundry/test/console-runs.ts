// What the console's run tests share: a project with a Marbles workspace and tokens, and `foundry ui` started on it.
import { spawn } from 'node:child_process'
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as assert from 'uvu/assert'
import { BIN, cli, tempDir } from './helpers.js'

const MARBLES = fileURLToPath(new URL('../node_modules/@foundry/marbles', import.meta.url))

/** A workflow with a string, an integer and a boolean input; `hold` keeps it running until it is cancelled. */
export const DEPLOY = `import { Type } from 'typebox'
import { workflow } from '@foundry/marbles'

export const deploy = workflow({
  name: 'deploy',
  description: 'Ship a service',
  input: Type.Object({
    service: Type.String({ minLength: 1 }),
    replicas: Type.Optional(Type.Integer({ minimum: 1 })),
    hold: Type.Optional(Type.Boolean()),
  }),
  async run(ctx, input) {
    await ctx.step('build', () => 'built ' + input.service)
    if (input.hold)
      await ctx.step('hold', ({ signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))))
    return { shipped: input.service, replicas: input.replicas ?? 1 }
  },
})
`

/**
 * A project with a Marbles workspace of `modules` (file name → source; `@foundry/marbles` and typebox
 * installed beside it), and a read, a write and a run token.
 */
export function consoleProject(modules: Record<string, string> = { 'deploy.ts': DEPLOY }): {
  root: string
  read: string
  write: string
  run: string
} {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  mkdirSync(join(root, 'node_modules', '@foundry'), { recursive: true })
  symlinkSync(realpathSync(MARBLES), join(root, 'node_modules', '@foundry', 'marbles'), 'dir')
  symlinkSync(realpathSync(join(MARBLES, 'node_modules', 'typebox')), join(root, 'node_modules', 'typebox'), 'dir')
  mkdirSync(join(root, '.foundry', 'marbles'), { recursive: true })
  for (const [file, source] of Object.entries(modules)) writeFileSync(join(root, '.foundry', 'marbles', file), source)
  const token = (role: string) => {
    const made = cli(['token', 'create', '--role', role, '--name', `${role}-user`, '--root', root])
    assert.is(made.code, 0, made.stderr)
    return made.stdout.split('\n')[0]!
  }
  return { root, read: token('read'), write: token('write'), run: token('run') }
}

/** `foundry ui --port 0` in `root`: its address, and stop() (SIGTERM, then its exit code). */
export async function startUi(root: string): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'ui', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, XDG_RUNTIME_DIR: tempDir(), FOUNDRY_TOKENS: '' },
  })
  let stderr = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString()
      const match = /foundry console: (\S+)/.exec(stderr)
      if (match) resolve(match[1]!)
    })
    void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)))
  })
  return { url, stop: () => (child.kill('SIGTERM'), exited) }
}
