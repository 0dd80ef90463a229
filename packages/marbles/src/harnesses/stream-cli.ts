import type { AgentRequest } from './types.js'
import { parseLine, runChild, type ChildExit } from './process.js'

export interface CliHarnessOptions {
  /** The executable. Default: the CLI's name, found on PATH. */
  command?: string
  /** Between SIGTERM and SIGKILL of the child's process group on cancellation. */
  graceMs?: number
}

/**
 * Run a CLI harness that writes one JSON event a line: every line goes to the request's output, and
 * each line that is a JSON object goes to `onEvent`. Resolves with the child's exit, as `runChild`.
 */
export function runStreamingCli(
  request: AgentRequest,
  options: CliHarnessOptions,
  defaultCommand: string,
  args: string[],
  onEvent: (event: Record<string, unknown>) => void,
): Promise<ChildExit> {
  return runChild({
    command: options.command ?? defaultCommand,
    args,
    cwd: request.cwd,
    signal: request.signal,
    ...(options.graceMs !== undefined && { graceMs: options.graceMs }),
    onStderr: (line) => request.output('stderr', line),
    onStdout(line) {
      request.output('stdout', line)
      const event = parseLine(line)
      if (event) onEvent(event)
    },
  })
}

/** The child's last stderr line, as the end of an error message (empty when it wrote none). */
export const tail = (lines: string[]) => (lines.length ? `: ${lines[lines.length - 1]}` : '')
