import { openProject, type Project, type ProjectContext } from '@foundry/project'
import { findProject } from '@foundry/project/find'
import { parseHookInput, type HookInputs } from './input.js'
import { EXIT_ERROR, EXIT_OK, errorLine, HookInputError, renderOutput, type HookOutput } from './io.js'
import { HOOK_EVENTS, HOOK_NAMES, isHookName, type HookName } from './names.js'
import type { PreCompactInput, SessionEndInput } from './input.js'
import { promptContext } from './prompt-context.js'
import { sessionStart } from './session-start.js'
import { subagentFirewall } from './subagent-firewall.js'

type InputOf<N extends HookName> = HookInputs[(typeof HOOK_EVENTS)[N]]
type Handlers = { [N in HookName]: (input: InputOf<N>, project: ProjectContext) => Promise<HookOutput> }

/**
 * What each hook runs. The two that start a capture (and with it `node:child_process`) are imported
 * when they run: the hooks on every prompt and session never load them.
 */
export const HANDLERS: Handlers = {
  'session-start': sessionStart,
  'prompt-context': promptContext,
  'subagent-firewall': subagentFirewall,
  precompact: async (input: PreCompactInput, project) => (await import('./precompact.js')).precompact(input, project),
  'session-end': async (input: SessionEndInput, project) =>
    (await import('./session-end.js')).sessionEnd(input, project),
}

/** What the process prints and how it exits. */
export interface HookRun {
  stdout: string
  stderr: string
  exitCode: number
}

export interface RunOptions {
  /** Where `FOUNDRY_ROOT` and `CLAUDE_PROJECT_DIR` are read. Default `process.env`. */
  env?: NodeJS.ProcessEnv
  /** The clock (tests pin it). */
  now?: () => Date
}

/**
 * Run hook `name` on the event JSON `stdin` in this process: parse, find the project, open it, answer,
 * close. Outside a Foundry project (no `.foundry` found, or `FOUNDRY_ROOT` naming none) it prints nothing. Any failure (bad input,
 * unreadable config, a storage error) is one line on stderr with exit code 1: a non-blocking error,
 * so the session goes on as if the hook were absent.
 */
export async function runHook(name: string, stdin: string, options: RunOptions = {}): Promise<HookRun> {
  if (!isHookName(name))
    return failed(name, new HookInputError(`unknown hook "${name}"; use one of ${HOOK_NAMES.join(', ')}`))
  let input: InputOf<HookName>
  try {
    input = parseHookInput(HOOK_EVENTS[name], stdin)
  } catch (error) {
    return failed(name, error)
  }
  // `FOUNDRY_ROOT` when it names a project, else the nearest `.foundry/` above the event's cwd, else above CLAUDE_PROJECT_DIR.
  const env = options.env ?? process.env
  const root = findProject({ cwd: input.cwd, env, fallback: env.CLAUDE_PROJECT_DIR })
  if (!root) return { stdout: '', stderr: '', exitCode: EXIT_OK }
  let project: Project
  try {
    project = await openProject({ root, ...(options.now && { now: options.now }) })
  } catch (error) {
    return failed(name, error)
  }
  const run = await answer(name, input, project)
  return { ...run, stderr: run.stderr + (await closeQuietly(project)) }
}

/** Answer a parsed event on an open project (the hook server calls this with its own). */
export async function answer<N extends HookName>(
  name: N,
  input: InputOf<N>,
  project: ProjectContext,
): Promise<HookRun> {
  try {
    const output = await (HANDLERS[name] as (input: InputOf<N>, project: ProjectContext) => Promise<HookOutput>)(
      input,
      project,
    )
    return { stdout: renderOutput(output), stderr: '', exitCode: EXIT_OK }
  } catch (error) {
    return failed(name, error)
  }
}

/** Parse `stdin` for hook `name` and answer it on `project`; bad input is a failed run, never a throw. */
export async function answerStdin(name: HookName, stdin: string, project: ProjectContext): Promise<HookRun> {
  let input: InputOf<HookName>
  try {
    input = parseHookInput(HOOK_EVENTS[name], stdin)
  } catch (error) {
    return failed(name, error)
  }
  return answer(name, input, project)
}

function failed(name: string, error: unknown): HookRun {
  return { stdout: '', stderr: errorLine(name, error), exitCode: EXIT_ERROR }
}

/** Close the project; a failure to persist a cache is a warning, never a reason to lose the hook's answer. */
async function closeQuietly(project: Project): Promise<string> {
  try {
    await project.close()
    return ''
  } catch (error) {
    return `foundry-hook: warning: could not close the project: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`
  }
}
