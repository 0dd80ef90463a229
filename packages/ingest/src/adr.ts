import { plainText, sections, splitFrontMatter, type Section } from './markdown.js'

/** What an ADR says about itself. */
export type AdrState = 'accepted' | 'proposed' | 'superseded' | 'deprecated' | 'rejected'

/** One Architecture Decision Record, read from its markdown (Nygard, MADR, or a metadata table). */
export interface Adr {
  /** Its number: from the file name (`0007-…`, `ADR-12.md`) or the heading (`# 7. …`). */
  number: number
  title: string
  state: AdrState
  /** The status as written (`✅ Accepted`, `superseded by ADR-0009`). */
  status: string
  /** Plain text of the decision (or, without one, of the first substantial section). */
  decision: string
  /** Plain text of the context, when the ADR has one. */
  context: string
  /** Plain text of the consequences, when the ADR has them. */
  consequences: string
  /** ADR numbers this one says it supersedes. */
  supersedes: number[]
  /** ADR numbers this one says supersede it. */
  supersededBy: number[]
}

const DECISION =
  /^(decision|decision outcome|decisions?|what.s proposed|proposal|proposed solution|chosen option|design|solution)$/i
const CONTEXT = /^(context|context and problem statement|problem statement|problem|background|motivation)$/i
const CONSEQUENCES = /^(consequences|positive consequences|implications|outcome)$/i
const STATUS_HEADING = /^status$/i

/** A file name that numbers an ADR: `0007-use-flyway.md`, `007-…`, `ADR-12.md`, `adr-0012-…`, `12-…`. */
export function adrNumberOfFile(name: string): number | undefined {
  const match = /^(?:adr[-_ ]?)?0*(\d{1,6})(?:[-_. ]|\.md$)/i.exec(name)
  return match ? Number(match[1]) : undefined
}

/** Files that sit beside ADRs but are not decisions. */
export const NOT_AN_ADR = /^(readme|license|index|template|adr-(0+|xx|template))(\.|-|$)|template/i

/**
 * Read one ADR. Returns undefined for a file with no `#` heading (not a record); throws an Error
 * naming the line for front matter that is not YAML.
 */
export function parseAdr(source: string, fileName: string): Adr | undefined {
  const doc = splitFrontMatter(source)
  const all = sections(doc.text, doc.firstLine)
  const top = all.find((s) => s.level === 1)
  if (!top) return undefined
  const headingNumber = /^(?:adr[-\s]*)?0*(\d{1,6})\s*[.:\-–]\s*/i.exec(top.heading)
  const number = adrNumberOfFile(fileName) ?? (headingNumber ? Number(headingNumber[1]) : undefined)
  if (number === undefined) return undefined
  const title = plainText(top.heading.replace(/^(?:adr[-\s]*)?\d{1,6}\s*[.:\-–]\s*/i, '')) || plainText(top.heading)
  const below = all.filter((s) => s !== top)
  const status = statusOf(doc.front, below, doc.text)
  const substantial = (s: Section | undefined) =>
    s && plainText(s.body).split(' ').length >= 4 ? plainText(s.body) : ''
  const find = (pattern: RegExp) =>
    substantial(below.find((s) => pattern.test(plainText(s.heading)) && plainText(s.body).split(' ').length >= 4))
  const first = below.find(
    (s) => !STATUS_HEADING.test(plainText(s.heading)) && plainText(s.body).split(' ').length >= 8,
  )
  const decision = find(DECISION) || find(CONTEXT) || substantial(first) || plainText(top.body)
  const context = find(CONTEXT)
  return {
    number,
    title,
    state: stateOf(status),
    status,
    decision,
    context: context === decision ? '' : context,
    consequences: find(CONSEQUENCES),
    supersedes: references(status + '\n' + doc.text, /\bsupersedes\b/i),
    supersededBy: references(status + '\n' + doc.text, /\bsuperseded\s+by\b/i),
  }
}

/** The status as written: front matter, a `## Status` section, a metadata table row, or a `Status:` line. */
function statusOf(front: Record<string, unknown>, below: Section[], text: string): string {
  if (typeof front.status === 'string') return front.status.trim()
  const section = below.find((s) => STATUS_HEADING.test(plainText(s.heading)))
  const line = section?.body
    .split('\n')
    .map((l) => plainText(l))
    .find(Boolean)
  if (line) return line
  const row = /^\s*\|\s*status\s*\|\s*([^|\n]+?)\s*\|/im.exec(text)
  if (row) return plainText(row[1]!)
  const inline = /^\s*(?:[*-]\s*)?\**status\**\s*:\s*(.+)$/im.exec(text)
  return inline ? plainText(inline[1]!) : ''
}

function stateOf(status: string): AdrState {
  const s = status.toLowerCase()
  if (/supersed|replaced by/.test(s)) return 'superseded'
  if (/deprecat|obsolete|retired|withdrawn/.test(s)) return 'deprecated'
  if (/reject|declined|abandoned/.test(s)) return 'rejected'
  if (/propos|draft|review|discussion|on hold|pending|open/.test(s)) return 'proposed'
  return 'accepted' // accepted, approved, implemented, adopted, done — and an ADR that states no status
}

/**
 * The ADR numbers named right after `verb` ("Superseded by [ADR-0009](0009-x.md)", "Supersedes ADR 3",
 * "superseded by 036-Multi-cluster.md"), each line read once.
 */
function references(text: string, verb: RegExp): number[] {
  const found = new Set<number>()
  for (const line of text.split('\n')) {
    const at = verb.exec(line)
    if (!at) continue
    const rest = line.slice(at.index + at[0].length, at.index + at[0].length + 160)
    const ref = /^[\s:*_]*(?:\[([^\]]*)\]\(([^)]*)\)|(?:adr[-\s#]*)?0*(\d{1,6})\b)/i.exec(rest)
    if (!ref) continue
    const named =
      ref[3] ??
      /(?:adr[-\s#]*)?0*(\d{1,6})/i.exec(ref[1] ?? '')?.[1] ??
      adrNumberOfFile((ref[2] ?? '').split('/').pop() ?? '')?.toString()
    if (named !== undefined) found.add(Number(named))
  }
  return [...found]
}
