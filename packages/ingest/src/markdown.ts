import { parse as parseYaml } from 'yaml'

/** A markdown document: its YAML front matter (empty when none) and the text after it. */
export interface Document {
  front: Record<string, unknown>
  text: string
  /** The line the text starts on (1-based), for messages. */
  firstLine: number
}

/** Split `---` front matter from the text. Throws an Error naming the line when the front matter is not YAML. */
export function splitFrontMatter(source: string): Document {
  const text = source.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
  const match = /^---\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(text)
  if (!match) return { front: {}, text, firstLine: 1 }
  let front: unknown
  try {
    front = parseYaml(match[1]!)
  } catch (error) {
    throw new Error(`line 2: the front matter is not YAML (${(error as Error).message.split('\n')[0]})`)
  }
  const lines = match[0].split('\n').length - (match[0].endsWith('\n') ? 1 : 0)
  return {
    front: front && typeof front === 'object' && !Array.isArray(front) ? (front as Record<string, unknown>) : {},
    text: text.slice(match[0].length),
    firstLine: lines + 1,
  }
}

/** A heading and the text below it up to the next heading of the same or a higher level. */
export interface Section {
  level: number
  heading: string
  body: string
  /** 1-based line of the heading. */
  line: number
}

/** Every ATX heading (`#` … `######`) outside code fences, each with its text up to the next heading of its level or higher. */
export function sections(text: string, firstLine = 1): Section[] {
  const lines = text.split('\n')
  const heads: Array<{ level: number; heading: string; at: number }> = []
  let fence: string | undefined
  lines.forEach((line, at) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (marker && (fence === undefined || marker.startsWith(fence)))
      fence = fence === undefined ? marker.slice(0, 3) : undefined
    if (fence !== undefined) return
    const head = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line)
    if (head) heads.push({ level: head[1]!.length, heading: head[2]!, at })
  })
  return heads.map((head, i) => {
    const next = heads.slice(i + 1).find((h) => h.level <= head.level)
    return {
      level: head.level,
      heading: head.heading,
      body: lines.slice(head.at + 1, next ? next.at : lines.length).join('\n'),
      line: firstLine + head.at,
    }
  })
}

/** HTML elements a markdown file may hold; `<name>`, `<n>` and other placeholders are text. */
const HTML_TAG =
  /<\/?(a|b|br|code|del|details|div|em|hr|i|img|kbd|li|ol|p|pre|s|span|strong|sub|summary|sup|table|tbody|td|th|thead|tr|u|ul)\b[^>]*>/gi

/** Markdown as plain text: code blocks dropped, links keep their text, emphasis, code marks, quotes, tables and HTML lose their marks. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/^\s{0,3}(`{3,}|~{3,})[\s\S]*?^\s{0,3}\1[^\n]*$/gm, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(HTML_TAG, ' ')
    .replace(/^\s*\|?\s*:?-{3,}.*$/gm, ' ')
    .replace(/^\s{0,3}(#{1,6}|>+)\s?/gm, '')
    .replace(/\|/g, ' ')
    .replace(/`+/g, '')
    .replace(/(^|[\s(])([*_]{1,3})(?=\S)/g, '$1')
    .replace(/(\S)([*_]{1,3})(?=[\s).,;:!?]|$)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
}

/** The first `max` words of `text`, ending at a sentence end when one falls in the second half. */
export function firstWords(text: string, max: number): string {
  const words = text.split(/\s+/).filter(Boolean)
  if (words.length <= max) return words.join(' ')
  const cut = words.slice(0, max)
  for (let i = cut.length - 1; i >= max / 2; i--)
    if (/[.!?]["')\]]*$/.test(cut[i]!)) return cut.slice(0, i + 1).join(' ')
  return `${cut.join(' ')} …`
}

/** A title of at most `max` characters, cut at a word. */
export function shortTitle(title: string, max = 80): string {
  const clean = plainText(title)
  if (clean.length <= max) return clean
  return `${clean.slice(0, max - 1).replace(/\s+\S*$/, '')}…`
}
