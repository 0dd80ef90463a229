import { plainText, splitFrontMatter } from './markdown.js'

/** One rule an instruction file states: a list item, with the heading it sits under. */
export interface Rule {
  text: string
  /** The nearest heading above it, plain (empty at the top of the file). */
  heading: string
  /** 1-based line of the item. */
  line: number
}

/** The files coding agents read their instructions from, by path (forward slashes), and a tag naming each. */
const INSTRUCTION_FILES: Array<[RegExp, string]> = [
  [/(^|\/)CLAUDE(\.local)?\.md$/, 'claude-md'],
  [/(^|\/)AGENTS\.md$/, 'agents-md'],
  [/(^|\/)\.cursorrules$/, 'cursor-rules'],
  [/(^|\/)\.cursor\/rules\/[^/]+\.mdc?$/, 'cursor-rules'],
  [/(^|\/)\.github\/copilot-instructions\.md$/, 'copilot-instructions'],
  [/(^|\/)\.github\/instructions\/[^/]+\.instructions\.md$/, 'copilot-instructions'],
]

/** The tag of an instruction file (`claude-md`, `agents-md`, `cursor-rules`, `copilot-instructions`), or undefined for any other file. */
export function instructionKind(path: string): string | undefined {
  const posix = path.replace(/\\/g, '/')
  return INSTRUCTION_FILES.find(([pattern]) => pattern.test(posix))?.[1]
}

/**
 * Every top-level list item of an instruction file, continuation lines and nested items folded
 * into it, with the heading above it. Prose paragraphs, code blocks and items of fewer than three
 * words are not rules.
 */
export function parseRules(source: string): Rule[] {
  const doc = splitFrontMatter(source)
  const rules: Rule[] = []
  let heading = ''
  let current: { lines: string[]; line: number; indent: number } | undefined
  let fence: string | undefined
  const close = () => {
    if (!current) return
    const text = plainText(current.lines.join('\n'))
    if (text.split(' ').length >= 3) rules.push({ text, heading, line: current.line })
    current = undefined
  }
  doc.text.split('\n').forEach((raw, at) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1]
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker.slice(0, 3) : undefined
      return
    }
    if (fence !== undefined) return
    const head = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw)
    if (head) {
      close()
      heading = plainText(head[1]!)
      return
    }
    const item = /^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$/.exec(raw)
    if (item && (!current || item[1]!.length <= current.indent)) {
      close()
      current = { lines: [item[2]!], line: doc.firstLine + at, indent: item[1]!.length }
    } else if (current && raw.trim() && (item || /^\s+\S/.test(raw))) current.lines.push(item ? item[2]! : raw.trim())
    else if (!raw.trim() || !/^\s/.test(raw)) close()
  })
  close()
  return rules
}
