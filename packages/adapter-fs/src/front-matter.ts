import { FactSchema, RunbookSchema, validator, type Fact, type Runbook } from '@foundry/kernel'
import { FormatError } from './format-error.js'

/*
 * Facts and runbooks are markdown files with YAML front matter:
 *
 *   ---
 *   id: fact-0004
 *   title: Migrations are plain SQL files
 *   …
 *   ---
 *
 *   The body, as markdown.
 *
 * Written with the keys in a fixed order, tags as a one-line list, one blank line before the body
 * and a final newline. Read leniently, because people edit these files: keys in any order, lists in
 * flow or block style, optional fields left out (defaults below), dates and timestamps as YAML
 * writes them. Whatever is read is then checked against the kernel's schema.
 */

const FACT_KEYS = [
  'id',
  'title',
  'type',
  'scope',
  'tags',
  'confidence',
  'source',
  'author',
  'created',
  'expires',
  'supersedes',
  'supersededBy',
  'status',
  'forgotten',
  'forgottenReason',
] as const
const FACT_DEFAULTS = { scope: 'project', confidence: 'medium', source: 'conversation', status: 'active' } as const
const factCheck = validator(FactSchema)
const runbookCheck = validator(RunbookSchema)

/*
 * The YAML library, loaded by `loadYaml` when first needed: by a read or a write of front matter
 * past the plain form Foundry writes (`plainFrontMatter` reads it, `plainYaml` writes it). A process
 * that reads and writes only facts as Foundry writes them never evaluates it.
 */
let yamlLib: typeof import('yaml') | undefined

/** Load the YAML library; resolves at once once it is loaded. */
export async function loadYaml(): Promise<void> {
  if (yamlLib) return
  const loaded: typeof import('yaml') & { default?: typeof import('yaml') } = await import('yaml')
  // A bundle split into ES module chunks hands the CommonJS library over as its default export only.
  yamlLib = typeof loaded.Document === 'function' ? loaded : loaded.default
}

/** Whether the YAML library has been loaded in this process. */
export const yamlLoaded = (): boolean => yamlLib !== undefined

/** Thrown where the YAML library is needed before `loadYaml` resolved: load it, then call again. */
export class YamlNotLoaded extends Error {
  constructor() {
    super('the YAML library is not loaded: await loadYaml() first')
  }
}

/** `read()`, run again once the YAML library is loaded when it needed the library (front matter past the plain form). */
export async function withYaml<T>(read: () => T): Promise<T> {
  try {
    return read()
  } catch (error) {
    if (!(error instanceof YamlNotLoaded)) throw error
  }
  await loadYaml()
  return read()
}

function loadedYaml(): typeof import('yaml') {
  if (!yamlLib) throw new YamlNotLoaded()
  return yamlLib
}

/** What a reader needs besides the text: the key the file name gives, and its modification time for a fact without `created`. */
export interface ReadContext {
  key: string
  /** The file's name, for messages: `fact-0004.md`. */
  file: string
  modified: () => Date
}

export function factToMarkdown(fact: Fact): string {
  const front: Record<string, unknown> = {}
  for (const key of FACT_KEYS) if (fact[key] !== undefined) front[key] = fact[key]
  return joinFrontMatter(front, fact.body)
}

export function markdownToFact(text: string, at: ReadContext): Fact {
  const { data, body } = splitFrontMatter(text)
  const fact: Record<string, unknown> = { ...data, body }
  const id = data.id ?? at.key
  if (String(id) !== at.key)
    throw new FormatError(`id ${String(id)} does not match the file name ${at.file}; make them agree`)
  fact.id = at.key
  for (const key of [
    'title',
    'type',
    'scope',
    'confidence',
    'source',
    'author',
    'status',
    'supersedes',
    'supersededBy',
    'forgottenReason',
  ] as const)
    fact[key] = scalarText(data[key])
  for (const [key, value] of Object.entries(FACT_DEFAULTS)) fact[key] ??= value
  fact.tags = tagList(data.tags)
  fact.created = data.created == null ? at.modified().toISOString() : timestamp(data.created)
  fact.expires = data.expires == null ? undefined : day(data.expires)
  fact.forgotten = data.forgotten == null ? undefined : timestamp(data.forgotten, 'forgotten')
  for (const key of Object.keys(fact)) if (fact[key] === undefined) delete fact[key]
  if (!factCheck.check(fact)) throw new FormatError(factCheck.problems(fact).join('; '))
  return fact
}

/** A stored fact must come back exactly as it was put: refuse a timestamp (`created`, `forgotten`) the reader would rewrite. */
export function checkCreated(created: string, field = 'created'): string | undefined {
  return ISO_TIMESTAMP.test(created) && !Number.isNaN(Date.parse(created))
    ? undefined
    : `${field} must be an ISO 8601 timestamp such as 2026-01-02T03:04:05.000Z (got ${JSON.stringify(created)})`
}

export function runbookToMarkdown(runbook: Runbook): string {
  const front: Record<string, unknown> = { title: runbook.title }
  if (runbook.trigger !== undefined) front.trigger = runbook.trigger
  return joinFrontMatter(front, runbook.body)
}

export function markdownToRunbook(text: string, at: ReadContext): Runbook {
  const { data, body } = splitFrontMatter(text)
  const { slug = at.key, title, trigger, ...rest } = data
  if (String(slug) !== at.key)
    throw new FormatError(`slug ${String(slug)} does not match the file name ${at.file}; make them agree`)
  const runbook: Record<string, unknown> = { slug: at.key, title: scalarText(title), ...rest, body }
  // A list of trigger phrases is the same as the comma-separated form.
  if (trigger != null)
    runbook.trigger = Array.isArray(trigger) ? trigger.map(scalarText).join(', ') : scalarText(trigger)
  if (runbook.title === undefined) delete runbook.title
  if (!runbookCheck.check(runbook)) throw new FormatError(runbookCheck.problems(runbook).join('; '))
  return runbook
}

/** `---`, the YAML, `---`, a blank line, the body, a final newline. Lists are written on one line. */
function joinFrontMatter(front: Record<string, unknown>, body: string): string {
  return `---\n${plainYaml(front) ?? libraryYaml(front)}---\n\n${body}\n`
}

/** The front matter as the YAML library writes it (lists in flow style, no line folding); throws YamlNotLoaded before `loadYaml`. */
export function libraryYaml(front: Record<string, unknown>): string {
  const { Document, isMap, YAMLSeq } = loadedYaml()
  const doc = new Document(front)
  if (isMap(doc.contents))
    for (const pair of doc.contents.items) if (pair.value instanceof YAMLSeq) pair.value.flow = true
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false })
}

/**
 * The front matter written without the YAML library, for what facts and runbooks hold (one-line
 * text, lists of text): byte for byte what `libraryYaml` writes (front-matter-plain.test.ts holds
 * the two together), so a process that writes a fact never loads the library. Undefined past that
 * (a line break, a control character, a value that is not text): the library writes it.
 */
export function plainYaml(front: Record<string, unknown>): string | undefined {
  let yaml = ''
  for (const [key, value] of Object.entries(front)) {
    const text =
      typeof value === 'string' ? yamlText(value, false) : Array.isArray(value) ? yamlFlowList(value) : undefined
    if (text === undefined || !PLAIN_KEY.test(key)) return undefined
    yaml += `${key}: ${text}\n`
  }
  return yaml || undefined
}

const PLAIN_KEY = /^[A-Za-z][A-Za-z0-9_]*$/
/** Characters the library escapes or writes in a block (line breaks, controls, lone surrogates), and the few it writes raw that the plain reader leaves to it. */
const NOT_ONE_LINE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\p{Cs}]/u
/** What a document marker may start: the library writes such text in a block. */
const DOCUMENT_MARKER = /^(?:%|---|\.\.\.)/
/** Text the library quotes (its `plainString`): an indicator first, `: ` or ` #` inside, a space or a colon last. */
const NEEDS_QUOTES = /^[ ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-] |: | #|[ :]$/
/** In a flow list, a comma or a bracket too. */
const NEEDS_QUOTES_IN_FLOW = /[[\]{},]/
/** The core schema's other scalars (null, booleans, integers, floats): text that reads as one of them is quoted. */
const NOT_TEXT = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
]

/** One-line text as the library writes it: plain when it reads back as this text, else quoted (single quotes when it holds only double ones). */
function yamlText(value: string, inFlow: boolean): string | undefined {
  if (NOT_ONE_LINE.test(value) || DOCUMENT_MARKER.test(value)) return undefined
  const plain =
    !NEEDS_QUOTES.test(value) && !(inFlow && NEEDS_QUOTES_IN_FLOW.test(value)) && !NOT_TEXT.some((re) => re.test(value))
  if (plain) return value
  // JSON's escapes for `"` and `\` are YAML's; nothing else is escaped in one-line text.
  return value.includes('"') && !value.includes("'") ? `'${value}'` : JSON.stringify(value)
}

function yamlFlowList(items: unknown[]): string | undefined {
  const texts: string[] = []
  for (const item of items) {
    const text = typeof item === 'string' ? yamlText(item, true) : undefined
    if (text === undefined) return undefined
    texts.push(text)
  }
  return `[${texts.join(', ')}]`
}

const CLOSE = /^---[ \t]*(\r?\n|$)/m

/**
 * The front matter as plain data, and the body: the text after the closing `---`, less one blank
 * separator line and one final newline (so what `joinFrontMatter` wrote comes back exactly).
 */
export function splitFrontMatter(text: string): { data: Record<string, unknown>; body: string } {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text
  const open = /^---[ \t]*\r?\n/.exec(source)
  if (!open)
    throw new FormatError(
      'the file must start with a front matter block: a line `---`, `key: value` lines, and a closing `---`',
    )
  const rest = source.slice(open[0].length)
  const close = CLOSE.exec(rest)
  if (!close) throw new FormatError('the front matter is not closed: add a line `---` after the last `key: value` line')
  const yaml = rest.slice(0, close.index)
  const newline = close[1] === '\r\n' ? '\r\n' : '\n'
  let body = rest.slice(close.index + close[0].length)
  if (body.startsWith(newline)) body = body.slice(newline.length)
  if (body.endsWith(newline)) body = body.slice(0, -newline.length)
  return { data: plainFrontMatter(yaml) ?? parseYaml(yaml), body }
}

const PLAIN_LINE = /^([A-Za-z][A-Za-z0-9_]*): (.*)$/
/** A plain scalar YAML 1.2 (core schema) reads as this very text: a word, no space, not a boolean or null. */
const PLAIN_WORD = /^[A-Za-z](?:[A-Za-z0-9_.:/@+-]*[A-Za-z0-9_./@+-])?$/
const SPECIAL_WORD = /^(?:true|false|null)$/i
/** Digits first: only a date or an ISO timestamp, which the core schema reads as text. */
const PLAIN_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)?$/
/** A plain scalar of printable characters starting with a letter or digit and not ending in a space. */
const PLAIN_WORDS = /^[\p{L}\p{N}][^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]*(?<! )$/u
const SINGLE_QUOTED = /^'(?:[^'\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|'')*'$/
const FLOW_WORDS = /^\[([A-Za-z0-9_.@/+, -]*)\]$/

/**
 * The front matter as Foundry writes it (`key: value` lines; values a word, words, a date or timestamp,
 * a single-quoted or JSON-escaped double-quoted string, or a one-line list of words), read without the YAML parser: the
 * same data `parseYaml` returns, at a fraction of a new process's cost. Undefined for anything else
 * (comments, blocks, other quoting, repeated keys): the YAML parser reads it.
 */
export function plainFrontMatter(yaml: string): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {}
  const lines = yaml.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  for (const line of lines) {
    const m = PLAIN_LINE.exec(line)
    if (!m || SPECIAL_WORD.test(m[1]!) || Object.hasOwn(data, m[1]!)) return undefined
    const value = plainValue(m[2]!)
    if (value === undefined) return undefined
    data[m[1]!] = value
  }
  return data
}

function plainValue(text: string): unknown {
  if (PLAIN_WORD.test(text)) return SPECIAL_WORD.test(text) ? undefined : text
  if (PLAIN_TIME.test(text)) return text
  // Words with spaces between, or a word not starting with a digit (no number is either; booleans and null were refused above): text, unless it holds what ends or comments a plain scalar.
  if (
    PLAIN_WORDS.test(text) &&
    (text.includes(' ') || !/^\d/.test(text)) &&
    !text.includes(': ') &&
    !text.includes(' #') &&
    !text.endsWith(':')
  )
    return text
  if (text.startsWith('"') && text.endsWith('"') && text.length >= 2) {
    try {
      // JSON's escapes mean the same in a YAML double-quoted string; a YAML-only escape fails here.
      const value: unknown = JSON.parse(text)
      return typeof value === 'string' ? value : undefined
    } catch {
      return undefined
    }
  }
  // Single-quoted: `''` is a quote, nothing else is escaped.
  if (SINGLE_QUOTED.test(text)) return text.slice(1, -1).replaceAll("''", "'")
  const flow = FLOW_WORDS.exec(text)
  if (!flow) return undefined
  if (!flow[1]!.trim()) return text === '[]' ? [] : undefined
  const items = flow[1]!.split(',').map((item) => item.trim())
  return items.every((item) => PLAIN_WORD.test(item) && !SPECIAL_WORD.test(item)) && flow[1] === items.join(', ')
    ? items
    : undefined
}

function parseYaml(yaml: string): Record<string, unknown> {
  const doc = loadedYaml().parseDocument(yaml, { uniqueKeys: true, prettyErrors: false })
  const error = doc.errors[0]
  if (error) {
    // Lines count from the file's first line, the opening `---`.
    const line = yaml.slice(0, error.pos[0]).split('\n').length + 1
    throw new FormatError(`front matter line ${line}: ${error.message.split('\n')[0]}`)
  }
  if (doc.contents === null) return {}
  const data: unknown = doc.toJS()
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new FormatError('the front matter must be `key: value` lines')
  return data as Record<string, unknown>
}

/** Plain scalars a person may leave unquoted (`title: 42`, `title: true`) read as the text they wrote. */
function scalarText(value: unknown): unknown {
  if (value === null) return undefined
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value
}

/** `[a, b]`, a block list, `a, b` or nothing. */
function tagList(value: unknown): unknown {
  if (value == null) return []
  if (typeof value === 'string') return value.split(/[,\s]+/).filter(Boolean)
  return Array.isArray(value) ? value.map(scalarText) : value
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/
/** The YAML 1.1 timestamp forms people write: `2026-01-02`, `2026-01-02 03:04:05`, `2026-1-2t3:04:05.5 -5`. */
const YAML_TIMESTAMP =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|[ \t]+)(\d{1,2}):(\d{2}):(\d{2})(\.\d+)?[ \t]*(Z|[+-]\d{1,2}(?::?\d{2})?)?)?$/

/** An ISO 8601 string is kept as written; other timestamp forms become `toISOString()` (UTC, milliseconds). */
function timestamp(value: unknown, field = 'created'): string {
  const text = String(value).trim()
  if (ISO_TIMESTAMP.test(text) && !Number.isNaN(Date.parse(text))) return text
  const m = YAML_TIMESTAMP.exec(text)
  if (m) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = m
    let offset = 0
    if (zone !== 'Z') {
      const [, sign, zh, zm = '0'] = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone)!
      offset = (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm))
    }
    const asWritten = Date.UTC(
      Number(y),
      Number(mo) - 1,
      Number(d),
      Number(h),
      Number(mi),
      Number(s),
      Math.round(Number(`0${fraction}`) * 1000),
    )
    const check = new Date(asWritten)
    const valid =
      check.getUTCMonth() === Number(mo) - 1 &&
      check.getUTCDate() === Number(d) &&
      Number(h) < 24 &&
      Number(mi) < 60 &&
      Number(s) < 61
    if (valid) return new Date(asWritten - offset * 60_000).toISOString()
  }
  throw new FormatError(`${field} must be a timestamp such as 2026-01-02T03:04:05Z (got ${JSON.stringify(text)})`)
}

/** `expires` as `YYYY-MM-DD`: a YAML date, a timestamp (its date as written), or a date with one-digit parts. */
function day(value: unknown): unknown {
  if (typeof value !== 'string') return value
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:$|[Tt ])/.exec(value.trim())
  return m ? `${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}` : value
}
