import { open } from 'node:fs/promises'

/** A transcript part: its text as a model reads it, and the byte offset after its last whole line. */
export interface TranscriptPart {
  text: string
  from: number
  end: number
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)

/**
 * The part of a Claude Code transcript (JSONL: `user` and `assistant` lines whose `message.content`
 * is text, `tool_use` or `tool_result` parts) after byte `from`, as plain lines: what the people said
 * whole, tool calls and results clipped. Only whole lines are read (a line being written is left
 * for the next capture); a file shorter than `from` (rewritten) is read from the start. The newest
 * `maxChars` characters are kept.
 */
export async function readTranscript(path: string, from: number, maxChars: number): Promise<TranscriptPart> {
  const file = await open(path, 'r').catch((error: NodeJS.ErrnoException) =>
    Promise.reject(new Error(`transcript: cannot read ${path} (${error.code ?? error.message})`)),
  )
  try {
    const { size } = await file.stat()
    const start = size < from ? 0 : from
    const buffer = Buffer.alloc(size - start)
    if (buffer.length) await file.read(buffer, 0, buffer.length, start)
    const whole = buffer.lastIndexOf(0x0a) + 1
    const lines = buffer.subarray(0, whole).toString('utf8').split('\n')
    const text = lines.flatMap(render).join('\n')
    return { text: text.length > maxChars ? text.slice(text.length - maxChars) : text, from: start, end: start + whole }
  } finally {
    await file.close()
  }
}

type Part = { type?: string; text?: string; name?: string; input?: unknown; content?: unknown }

/** One JSONL line as zero or more plain lines; lines of other kinds (summaries, system notes) and broken JSON are skipped. */
function render(line: string): string[] {
  if (!line.trim()) return []
  let entry: { type?: string; message?: { role?: string; content?: unknown } }
  try {
    entry = JSON.parse(line)
  } catch {
    return []
  }
  if ((entry.type !== 'user' && entry.type !== 'assistant') || !entry.message) return []
  const who = entry.type === 'user' ? 'User' : 'Assistant'
  const content = entry.message.content
  if (typeof content === 'string') return [`${who}: ${content}`]
  if (!Array.isArray(content)) return []
  return (content as Part[]).flatMap((part) => {
    if (part.type === 'text' && typeof part.text === 'string') return [`${who}: ${part.text}`]
    if (part.type === 'tool_use')
      return [`Tool call: ${part.name ?? '?'} ${clip(JSON.stringify(part.input ?? {}), 200)}`]
    if (part.type === 'tool_result') {
      const body =
        typeof part.content === 'string'
          ? part.content
          : Array.isArray(part.content)
            ? (part.content as Part[]).map((c) => c.text ?? '').join(' ')
            : ''
      return [`Tool result: ${clip(body, 300)}`]
    }
    return []
  })
}
