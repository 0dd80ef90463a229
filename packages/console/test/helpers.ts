import { spawn, type ChildProcess } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { initProject, openProject, type Project } from '@foundry/project'

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  json: any
}

/** One HTTP request with full control of its headers (fetch will not send another Host). */
export function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: options.method ?? 'GET',
        headers: { ...(options.body !== undefined && { 'content-type': 'application/json' }), ...options.headers },
      },
      (res) => {
        let body = ''
        res.on('data', (d) => (body += d))
        res.on('end', () => {
          let json: unknown
          try {
            json = JSON.parse(body)
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json })
        })
      },
    )
    req.on('error', reject)
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body))
  })
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })

const made: string[] = []

/** A new project (`initProject`, folder storage) in a temp folder, removed by `cleanup()`. */
export async function tempProject(storage: 'fs' | 'sqlite' = 'fs'): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'foundry-console-test-'))
  made.push(root)
  await initProject({ root, storage })
  return root
}

export function cleanup(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** A Marbles-like run in the project: its record in `marbles.runs` and the first entries of its journal. */
export async function writeRun(project: Project, id: string, status = 'running'): Promise<void> {
  const now = Date.now()
  await project.storage.put('marbles.runs', id, { id, name: 'nightly-audit', status, createdAt: now, updatedAt: now })
  await project.storage.appendLog(`marbles/${id}`, [
    JSON.stringify({ seq: 0, at: now, type: 'status', status: 'queued', name: 'nightly-audit' }),
    JSON.stringify({ seq: 1, at: now, type: 'status', status: 'running' }),
  ])
}

const APPENDER = fileURLToPath(new URL('./journal-appender.ts', import.meta.url))
const TSX = fileURLToPath(new URL('../../../node_modules/tsx/dist/cli.mjs', import.meta.url))

/**
 * A second process that opens the project and appends one journal entry to run `id` for each line
 * it reads on stdin (`message`), answering `appended <n>` on stdout after each.
 */
export function startAppender(
  root: string,
  id: string,
): { child: ChildProcess; append(message: string): Promise<void>; stop(): Promise<void> } {
  const child = spawn(process.execPath, [TSX, APPENDER, root, id], { stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  const waiting: Array<{ n: number; resolve: () => void }> = []
  let count = 0
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString()
    const done = out.match(/appended \d+/g)?.length ?? 0
    for (const w of waiting.splice(0)) done >= w.n ? w.resolve() : waiting.push(w)
  })
  return {
    child,
    append(message) {
      count++
      const n = count
      return new Promise<void>((resolve, reject) => {
        waiting.push({ n, resolve })
        child.once('exit', (code) => reject(new Error(`appender exited with ${code}`)))
        child.stdin!.write(`${message}\n`)
      })
    },
    stop: () =>
      new Promise<void>((resolve) =>
        child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.stdin!.end()),
      ),
  }
}

/** Facts the tests and the screenshots use: a decision superseded twice, a few others, and two hostile ones. */
export async function fillProject(root: string): Promise<{ project: Project; chain: string[]; hostile: string }> {
  const project = await openProject({ root })
  const { memory } = project.kernel
  const first = await memory.write({
    title: 'Persistence layer uses Liquibase for migrations',
    body: 'XML changelogs.\nWhy: the first team knew it.\nHow to apply: add changelogs under db/.',
    type: 'decision',
    source: 'adr-0003',
  })
  const second = await memory.write({
    title: 'Persistence layer uses Flyway for schema migrations',
    body: 'Plain SQL migrations.\nWhy: the team reviews SQL, not XML.\nHow to apply: add V<n>__<name>.sql files.',
    type: 'decision',
    supersedes: first.id,
    source: 'adr-0007',
  })
  const third = await memory.write(
    {
      title: 'Flyway migrations run at deploy, never at application start',
      body: 'Migrations run in the deploy job.\nWhy: two replicas starting together raced on the schema.\nHow to apply: `flyway migrate` in **deploy.yml**; see [the runbook](https://example.com/runbooks/deploy).',
      type: 'decision',
      supersedes: second.id,
      tags: ['db', 'deploy'],
    },
    { author: 'alice' },
  )
  await memory.write({
    title: 'Billing amounts are integer cents, never floats',
    body: 'Store and compute money as integer cents.\n- rounding happens once, at display\n- currencies keep their own minor unit',
    type: 'constraint',
    scope: 'module:billing',
    tags: ['money'],
  })
  await memory.write({
    title: 'API errors use RFC 9457 problem details',
    body: 'Every HTTP error body is application/problem+json with type, title and detail.',
    type: 'convention',
  })
  await memory.write({
    title: 'The payment provider times out after 30 seconds',
    body: 'Calls to the provider fail after 30 s.\nWhy: its gateway cuts long requests.\nHow to apply: make retries idempotent.',
    type: 'risk',
    tags: ['payments'],
  })
  const hostile = await memory.write({
    title: '<img src=x onerror=alert(1)>',
    body: 'Click [x](javascript:alert(1)) or <script>alert(2)</script> <b onmouseover=alert(3)>here</b>.',
    type: 'glossary',
  })
  await project.kernel.runbooks.put({
    slug: 'release',
    title: 'Cut a release',
    trigger: 'release, ship it',
    body: '1. Run the migrations check.\n2. Tag `vX.Y.Z` and push.\n3. Watch the deploy job.',
  })
  await project.kernel.blackboard.write({
    wave: 'audit',
    agent: 'security-reviewer',
    schema: 'finding.v1',
    data: {
      title: 'Session cookie lacks SameSite',
      severity: 'medium',
      summary: 'The session cookie is sent on cross-site requests.',
      failureScenario: 'A page on another site posts a form to /transfer with the cookie attached.',
    },
  })
  await memory.search({ query: 'migrations' })
  return { project, chain: [first.id, second.id, third.id], hostile: hostile.id }
}
