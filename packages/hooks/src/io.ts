import { fstatSync, readSync } from 'node:fs'

/**
 * How a command hook talks to Claude Code: the event's JSON arrives on stdin; what the hook prints on
 * stdout (exit 0) is read as JSON (`hookSpecificOutput`, `decision`) or, for a few events, as plain
 * text; an exit code other than 0 and 2 is a non-blocking error whose stderr the user sees.
 * Exit code 2 blocks the action and feeds stderr to the model: Foundry hooks never use it, so no
 * failure of theirs can ever block a session. A hook blocks only on purpose, with `decision: "block"`.
 */

/** Success: stdout is the hook's answer (possibly empty). */
export const EXIT_OK = 0
/** Non-blocking error: one line on stderr, the session continues as if the hook had printed nothing. */
export const EXIT_ERROR = 1

/** What a hook answers: `undefined` prints nothing at all; a string is printed as is; an object as JSON. */
export type HookOutput = undefined | string | Record<string, unknown>

/** The input could not be used: malformed JSON, the wrong event, a missing field. */
export class HookInputError extends Error {
  override readonly name = 'HookInputError'
}

/**
 * Everything on stdin, as UTF-8. Refuses a terminal: a hook is run by Claude Code with the event piped in.
 * Without `stream`, a pipe, socket or file on descriptor 0 is read with plain blocking reads: the
 * `process.stdin` stream would load Node's stream and net modules, a few ms of a process that starts
 * on every prompt. Anything else (a terminal, a descriptor that will not block) goes through the stream.
 */
export async function readStdin(stream?: NodeJS.ReadStream): Promise<string> {
  const read = stream ? undefined : readDescriptor()
  if (read?.done) return Buffer.concat(read.chunks).toString('utf8')
  return readStream(stream ?? process.stdin, read?.chunks ?? [])
}

/** Descriptor 0 read to its end when it is a pipe, a socket or a file; `done` false when the rest is the stream's to read. */
function readDescriptor(): { chunks: Buffer[]; done: boolean } {
  const chunks: Buffer[] = []
  try {
    const stats = fstatSync(0)
    if (!stats.isFIFO() && !stats.isSocket() && !stats.isFile()) return { chunks, done: false }
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024)
      const length = readSync(0, chunk, 0, chunk.length, null)
      if (length === 0) return { chunks, done: true }
      chunks.push(chunk.subarray(0, length))
    }
  } catch {
    // EAGAIN (a descriptor set not to block), or none to read: the stream reads the rest.
    return { chunks, done: false }
  }
}

async function readStream(stream: NodeJS.ReadStream, chunks: Buffer[]): Promise<string> {
  if (stream.isTTY)
    throw new HookInputError('expects the hook event JSON on stdin (Claude Code pipes it in); nothing was piped')
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  return Buffer.concat(chunks).toString('utf8')
}

/** Parse stdin as one JSON object. */
export function parseJsonObject(text: string): Record<string, unknown> {
  if (!text.trim()) throw new HookInputError('stdin is empty; expected the hook event JSON')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new HookInputError(`stdin is not JSON (${(error as Error).message}); expected the hook event JSON`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HookInputError('stdin is JSON but not an object; expected the hook event JSON')
  return value as Record<string, unknown>
}

/** The text a hook prints for its output; empty for `undefined`. */
export function renderOutput(output: HookOutput): string {
  if (output === undefined) return ''
  return typeof output === 'string' ? output : `${JSON.stringify(output)}\n`
}

/** `{"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}}`: context added for the model (SessionStart, UserPromptSubmit). */
export function additionalContext(hookEventName: string, text: string): Record<string, unknown> {
  return { hookSpecificOutput: { hookEventName, additionalContext: text } }
}

/** `{"decision":"block","reason":…}`: for SubagentStop, the subagent keeps running and `reason` is its next instruction. */
export function block(reason: string): Record<string, unknown> {
  return { decision: 'block', reason }
}

/** The one line a failing hook writes on stderr: `foundry-hook <hook>: <message>`, white space folded, at most 500 characters. */
export function errorLine(hook: string, error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim()
  return `foundry-hook ${hook}: ${message.length > 500 ? `${message.slice(0, 499)}…` : message}\n`
}
