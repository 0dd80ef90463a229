import type { Runbook } from '@foundry/kernel'

/*
 * The text of a runbook file, as `.foundry/runbooks/<slug>.md` holds it: a front matter block with
 * `title` and an optional `trigger`, a blank line, and the body. `foundry runbook edit` opens it in
 * $EDITOR, and `foundry runbook add --file` accepts it. Read leniently: `# comment` lines, a value in
 * double (JSON) or single quotes, a trigger as `[a, b]`; any other key is an error naming the line.
 */

/** What a runbook file gives: the fields present, and the body. */
export interface RunbookText {
  slug?: string
  title?: string
  trigger?: string
  body: string
}

const KEYS = ['slug', 'title', 'trigger'] as const
type Key = (typeof KEYS)[number]

/** Whether `text` starts with a front matter block (otherwise it is a body alone). */
export const hasFrontMatter = (text: string): boolean => /^\uFEFF?---[ \t]*\r?\n/.test(text)

/** The file `$EDITOR` opens for `runbook`: a comment saying what saving does, then the runbook file text. */
export function toRunbookFile(runbook: Runbook): string {
  const lines = [
    '---',
    `# Editing runbook ${runbook.slug}. Save and close to store it; leave it as it is to store nothing. trigger: comma-separated phrases, or empty.`,
    `title: ${quoted(runbook.title)}`,
    `trigger: ${runbook.trigger === undefined ? '' : quoted(runbook.trigger)}`,
    '---',
    '',
    runbook.body,
  ]
  return `${lines.join('\n')}\n`
}

/** The fields and body of a runbook file. Throws an Error naming the line and the fix. */
export function fromRunbookFile(text: string, source: string): RunbookText {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  if (lines[0]?.trim() !== '---')
    throw new Error(`${source} must start with a line \`---\` (the front matter: title, trigger)`)
  const close = lines.findIndex((line, i) => i > 0 && line.trim() === '---')
  if (close < 0) throw new Error(`${source}: the front matter is not closed: add a line \`---\` before the body`)
  const out: Partial<Record<Key, string>> = {}
  for (let i = 1; i < close; i++) {
    const line = lines[i]!
    if (!line.trim() || line.trimStart().startsWith('#')) continue
    const at = line.indexOf(':')
    const key = line.slice(0, at).trim() as Key
    if (at < 0 || !KEYS.includes(key))
      throw new Error(
        `${source} line ${i + 1}: expected title: or trigger: as \`key: value\`, got ${JSON.stringify(line)}`,
      )
    out[key] =
      key === 'trigger'
        ? phrases(line.slice(at + 1).trim(), source, i + 1)
        : scalar(line.slice(at + 1).trim(), source, i + 1)
  }
  const body = lines
    .slice(close + 1)
    .join('\n')
    .trim()
  const { slug, title, trigger } = out
  return {
    ...(slug && { slug }),
    ...(title !== undefined && { title }),
    ...(trigger !== undefined && { trigger }),
    body,
  }
}

/** A value YAML would misread (a quote, bracket, `#`, `: ` or edge spaces) is written as a JSON string. */
function quoted(value: string): string {
  return /^["'[\]{}>|*&!%@`#-]|: | #|^\s|\s$/.test(value) || value === '' ? JSON.stringify(value) : value
}

/** `"json string"`, `'single-quoted'`, or the text as written. */
function scalar(raw: string, source: string, line: number): string {
  if (raw.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(raw)
      if (typeof value === 'string') return value
    } catch {
      // reported below
    }
    throw new Error(`${source} line ${line}: ${raw} is not a complete quoted string; close the quote or remove it`)
  }
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length > 1) return raw.slice(1, -1).replace(/''/g, "'")
  return raw
}

/** A trigger: `a, b`, `[a, b]` or a quoted string. */
function phrases(raw: string, source: string, line: number): string {
  if (!(raw.startsWith('[') && raw.endsWith(']'))) return scalar(raw, source, line)
  return raw
    .slice(1, -1)
    .split(',')
    .map((p) => p.trim().replace(/^["']|["']$/g, ''))
    .filter(Boolean)
    .join(', ')
}
