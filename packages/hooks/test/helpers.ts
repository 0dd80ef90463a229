import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EVENT_KINDS, type FactInput, type FoundryEvent } from '@foundry/kernel'
import { openProject } from '@foundry/project'

/** The built bins: tests run the hooks exactly as Claude Code does, as child processes. */
export const HOOK_BIN = new URL('../dist/bin/foundry-hook.cjs', import.meta.url).pathname
export const VALIDATE_BIN = new URL('../dist/bin/foundry-validate-assets.js', import.meta.url).pathname
const FIXTURES = new URL('./fixtures/', import.meta.url).pathname

/** The Larkspur memory: 219 hand-written facts about a fictional veterinary practice-management product. */
export function larkspurFacts(): FactInput[] {
  return readFileSync(join(FIXTURES, 'larkspur-facts.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as FactInput)
}

export const RELEASE_RUNBOOK = {
  slug: 'release-to-production',
  title: 'Release to production',
  trigger: 'release to production, promote to production, deploy to production',
  body: '1. Check the change window: Tuesday to Thursday before 15:00.\n2. Promote the staging digest in the deploy repo.\n3. Watch the booking and payment dashboards for 30 minutes.',
}

const scratch = mkdtempSync(join(tmpdir(), 'foundry-hooks-test-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))
let template: Promise<string> | undefined
let counter = 0

/** A fresh project folder holding `.foundry/` with the Larkspur facts and one runbook, and `config` when given. */
export async function larkspurProject(config?: Record<string, unknown>): Promise<string> {
  template ??= seed()
  const dir = join(scratch, `p${++counter}`)
  cpSync(await template, dir, { recursive: true })
  if (config) writeFileSync(join(dir, '.foundry', 'config.json'), JSON.stringify(config))
  return dir
}

/** A project with no facts (a `.foundry` folder and an optional config). */
export function emptyProject(config?: Record<string, unknown>): string {
  const dir = join(scratch, `p${++counter}`)
  mkdirSync(join(dir, '.foundry'), { recursive: true })
  if (config) writeFileSync(join(dir, '.foundry', 'config.json'), JSON.stringify(config))
  return dir
}

/** A folder that is not a Foundry project. */
export function plainFolder(): string {
  const dir = join(scratch, `p${++counter}`)
  mkdirSync(dir, { recursive: true })
  return dir
}

async function seed(): Promise<string> {
  const dir = join(scratch, 'template')
  mkdirSync(join(dir, '.foundry'), { recursive: true })
  // Not durable: a seed that a crash may lose is fine, and fsync for 219 facts is slow.
  const { kernel } = await openProject({ root: dir, overrides: { storage: { kind: 'fs', durable: false } } })
  for (const fact of larkspurFacts()) await kernel.memory.write(fact)
  await kernel.runbooks.put(RELEASE_RUNBOOK)
  await kernel.memory.search({ query: 'build the retriever snapshot' })
  await kernel.close()
  rmSync(join(dir, '.foundry', 'metrics'), { recursive: true, force: true })
  return dir
}

/** What a hook process did. */
export interface Ran {
  stdout: string
  stderr: string
  code: number | null
  /** stdout parsed as JSON, when it is JSON. */
  json: Record<string, any> | undefined
}

/** Spawn `foundry-hook <hook>` with `stdin` (an object is sent as JSON). FOUNDRY_ROOT and CLAUDE_PROJECT_DIR are unset unless `env` sets them. */
export function runHookBin(hook: string, stdin: unknown, env: Record<string, string> = {}): Promise<Ran> {
  return run(HOOK_BIN, [hook], typeof stdin === 'string' ? stdin : JSON.stringify(stdin), env)
}

export function run(
  bin: string,
  args: string[],
  stdin: string | undefined,
  env: Record<string, string> = {},
): Promise<Ran> {
  const base = { ...process.env }
  delete base.FOUNDRY_ROOT
  delete base.CLAUDE_PROJECT_DIR
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...base, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      let json: Record<string, any> | undefined
      try {
        json = stdout.trim() ? JSON.parse(stdout) : undefined
      } catch {
        json = undefined
      }
      resolve({ stdout, stderr, code, json })
    })
    if (stdin !== undefined) child.stdin.end(stdin)
    else child.stdin.end()
  })
}

/** The payloads Claude Code sends (fields as documented at https://code.claude.com/docs/en/hooks). */
const common = (event: string, cwd: string) => ({
  session_id: 'sess-7f3a',
  transcript_path: join(cwd, 'transcript.jsonl'),
  cwd,
  hook_event_name: event,
  permission_mode: 'default',
})
export const payload = {
  sessionStart: (cwd: string, source = 'startup') => ({ ...common('SessionStart', cwd), source }),
  prompt: (cwd: string, prompt: string) => ({ ...common('UserPromptSubmit', cwd), prompt }),
  subagentStop: (cwd: string, message: string, extra: Record<string, unknown> = {}) => ({
    ...common('SubagentStop', cwd),
    stop_hook_active: false,
    agent_id: 'a91c2e',
    agent_type: 'code-reviewer',
    agent_transcript_path: join(cwd, 'agent-a91c2e.jsonl'),
    last_assistant_message: message,
    ...extra,
  }),
  preCompact: (cwd: string, trigger = 'auto') => ({ ...common('PreCompact', cwd), trigger, custom_instructions: '' }),
  sessionEnd: (cwd: string, reason = 'prompt_input_exit') => ({ ...common('SessionEnd', cwd), reason }),
}

/** A subagent's final message of about `tokens` tokens (4 characters each). */
export function messageOf(tokens: number): string {
  const sentence = 'The invoice module rounds each line half-to-even before summing, as ADR-0005 requires. '
  return sentence.repeat(Math.ceil((tokens * 4) / sentence.length)).slice(0, tokens * 4)
}

/** The events recorded in the project's log. */
/**
 * The seed's events (EVENT_KINDS) of what the hooks did (failed operations left out), in order. The
 * kernel's timing events (`runbook_match`, `firewall_check`, … with `ms` and `status`) are in `allEvents`.
 */
export function events(dir: string): FoundryEvent[] {
  const seed: ReadonlySet<string> = new Set(EVENT_KINDS)
  return allEvents(dir).filter((e) => seed.has(e.kind) && (e.data?.status ?? 'ok') === 'ok')
}

/** Every event of the project's log. */
export function allEvents(dir: string): FoundryEvent[] {
  try {
    return readFileSync(join(dir, '.foundry', 'metrics', 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as FoundryEvent)
  } catch {
    return []
  }
}

/** The `additionalContext` a hook injected, or undefined. */
export function contextOf(ran: Ran): string | undefined {
  return ran.json?.hookSpecificOutput?.additionalContext
}
