import type { Confidence, Fact, FactType } from '@foundry/kernel'

/** What `foundry edit` lets a person change: memory_write's fields. */
export interface EditableFact {
  title: string
  body: string
  type: FactType
  scope: string
  tags: string[]
  confidence: Confidence
  source: string
  expires?: string
}

/** The front matter keys of the edit file, in order. */
const KEYS = ['title', 'type', 'scope', 'tags', 'confidence', 'source', 'expires'] as const
type Key = (typeof KEYS)[number]

export function editableOf(fact: Fact): EditableFact {
  const { title, body, type, scope, tags, confidence, source, expires } = fact
  return { title, body, type, scope, tags, confidence, source, ...(expires !== undefined && { expires }) }
}

/** Whether an edit changes nothing memory_write would store (whitespace around the text aside). */
export function sameFact(a: EditableFact, b: EditableFact): boolean {
  const norm = (f: EditableFact) =>
    JSON.stringify([
      f.title.trim().replace(/\s+/g, ' '),
      f.body.trim(),
      f.type,
      f.scope,
      f.tags,
      f.confidence,
      f.source,
      f.expires ?? '',
    ])
  return norm(a) === norm(b)
}

/**
 * The file `$EDITOR` opens: a comment, the fields as `key: value` front matter (tags as `[a, b]`), a
 * blank line and the body. A value that starts with a quote or a bracket is written as a JSON string.
 */
export function toEditFile(fact: Fact): string {
  const value = (v: string) => (/^["'[\s]|\s$/.test(v) ? JSON.stringify(v) : v)
  const lines = [
    '---',
    `# Editing ${fact.id}. Save and close to write a new version that supersedes it; leave it as it is to write nothing.`,
    `title: ${value(fact.title)}`,
    `type: ${fact.type}`,
    `scope: ${fact.scope}`,
    `tags: [${fact.tags.join(', ')}]`,
    `confidence: ${fact.confidence}`,
    `source: ${fact.source}`,
    `expires: ${fact.expires ?? ''}`,
    '---',
    '',
    fact.body,
  ]
  return `${lines.join('\n')}\n`
}

/** The fields an edited file holds. Throws an Error naming the line and the fix. */
export function fromEditFile(text: string): Partial<EditableFact> & { body: string } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  if (lines[0]?.trim() !== '---')
    throw new Error('the edited file must start with a line `---` (the front matter); nothing written')
  const close = lines.findIndex((line, i) => i > 0 && line.trim() === '---')
  if (close < 0) throw new Error('the front matter is not closed: add a line `---` before the body; nothing written')
  const out: Partial<Record<Key, string | string[]>> = {}
  for (let i = 1; i < close; i++) {
    const line = lines[i]!
    if (!line.trim() || line.trimStart().startsWith('#')) continue
    const at = line.indexOf(':')
    const key = line.slice(0, at).trim() as Key
    if (at < 0 || !KEYS.includes(key))
      throw new Error(
        `line ${i + 1}: expected one of ${KEYS.join(', ')} as \`key: value\`, got ${JSON.stringify(line)}; nothing written`,
      )
    const raw = line.slice(at + 1).trim()
    if (!raw) continue
    out[key] = key === 'tags' ? tagsOf(raw) : scalar(raw, i + 1)
  }
  const body = lines
    .slice(close + 1)
    .join('\n')
    .trim()
  return { ...(out as Partial<EditableFact>), body }
}

/** `"json string"`, `'yaml single-quoted'`, or the text as written. */
function scalar(raw: string, line: number): string {
  if (raw.startsWith('"')) {
    try {
      const value: unknown = JSON.parse(raw)
      if (typeof value === 'string') return value
    } catch {
      // reported below
    }
    throw new Error(
      `line ${line}: ${raw} is not a complete quoted string; close the quote or remove it; nothing written`,
    )
  }
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length > 1) return raw.slice(1, -1).replace(/''/g, "'")
  return raw
}

/** `[a, b]`, `a, b` or `a b`. */
function tagsOf(raw: string): string[] {
  const inner = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw
  return inner
    .split(/[,\s]+/)
    .map((t) => t.replace(/^["']|["']$/g, ''))
    .filter(Boolean)
}
