// Markdown for facts, runbooks and artifacts, rendered straight to Preact nodes: every piece of text
// is a text node, so no HTML in the source is ever parsed, and a link is a link only when its target
// is http(s), mailto or a fragment. No `innerHTML` anywhere.
import { h, type ComponentChild } from 'preact'

const SAFE_LINK = /^(https?:\/\/|mailto:|#)/i

/** Inline markdown: `code`, **strong**, *em*, [text](url) with a safe url; everything else is text. */
export function inline(text: string): ComponentChild[] {
  const out: ComponentChild[] = []
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)\s]+)\)/g
  let last = 0
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index))
    if (m[1] !== undefined) out.push(h('code', null, m[1]))
    else if (m[2] !== undefined) out.push(h('strong', null, m[2]))
    else if (m[3] !== undefined) out.push(h('em', null, m[3]))
    else if (m[4] !== undefined) {
      const url = m[5] ?? ''
      out.push(SAFE_LINK.test(url) ? h('a', { href: url, rel: 'noopener noreferrer nofollow', target: '_blank' }, m[4]) : `${m[4]} (${url})`)
    }
    last = m.index + m[0].length
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}

/** Block markdown: headings, fenced code, bullet and numbered lists, paragraphs. */
export function markdown(source: string): ComponentChild[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n')
  const blocks: ComponentChild[] = []
  for (let i = 0; i < lines.length; ) {
    const line = lines[i] ?? ''
    if (/^```/.test(line)) {
      const code: string[] = []
      for (i++; i < lines.length && !/^```/.test(lines[i] ?? ''); i++) code.push(lines[i] ?? '')
      i++
      blocks.push(h('pre', null, h('code', null, code.join('\n'))))
    } else if (/^#{1,6}\s/.test(line)) {
      const level = Math.min(6, (/^#+/.exec(line)?.[0].length ?? 1) + 2)
      blocks.push(h(`h${level}`, null, inline(line.replace(/^#+\s*/, ''))))
      i++
    } else if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line)
      const items: ComponentChild[] = []
      for (; i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i] ?? ''); i++) items.push(h('li', null, inline((lines[i] ?? '').replace(/^\s*([-*+]|\d+[.)])\s+/, ''))))
      blocks.push(h(ordered ? 'ol' : 'ul', null, items))
    } else if (!line.trim()) i++
    else {
      const para: string[] = []
      for (; i < lines.length && (lines[i] ?? '').trim() && !/^(```|#{1,6}\s|\s*([-*+]|\d+[.)])\s+)/.test(lines[i] ?? ''); i++) para.push(lines[i] ?? '')
      const parts: ComponentChild[] = []
      para.forEach((p, n) => parts.push(...(n ? [h('br', null)] : []), ...inline(p)))
      blocks.push(h('p', null, parts))
    }
  }
  return blocks
}

/** `text` with every word that starts with a query word wrapped in <mark> (the search's matches, roughly: the retriever stems). */
export function highlight(text: string, query: string): ComponentChild[] {
  const words = [...new Set(query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1))]
  if (!words.length) return [text]
  const stems = words.map((w) => (w.length > 4 ? w.replace(/(ing|ed|es|s)$/, '') : w).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(${stems.join('|')})[\\p{L}\\p{N}]*`, 'giu')
  const out: ComponentChild[] = []
  let last = 0
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index))
    out.push(h('mark', null, m[0]))
    last = m.index + m[0].length
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}
