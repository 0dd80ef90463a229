import type { FactInput } from '@foundry/kernel'
import type { Adr } from './adr.js'
import type { Rule } from './instructions.js'
import { firstWords, shortTitle } from './markdown.js'

/** A fact to write, with what identifies its source across runs and what it replaces. */
export interface PlannedFact {
  /** The same source section from run to run (`keyOfFact` reads it back from a stored fact): `adr:<set>:<number>`, or `rule:<kind>:<heading>:<title>`. */
  key: string
  /** The source file, relative to where the ingest started, and its line. */
  file: string
  line: number
  input: FactInput
  /** Keys of the facts this one replaces, as the source says (an ADR's "Supersedes ADR-3"). */
  replaces: string[]
  /** Keys of the facts the source says replace this one ("Superseded by ADR-9"). */
  replacedBy: string[]
  /** Recorded but not loaded: the fact is forgotten right after it is written, with this reason. */
  shelved?: string
}

/** A tag of letters, digits, `.`, `_` and `-`: what a folder or heading becomes in `tags`. */
export const tagOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40) || 'untitled'

const adrSource = (n: number) => `adr-${String(n).padStart(4, '0')}`

/**
 * An ADR as one `decision` fact: its title, what was decided, `Why:` from its context, `How to
 * apply:` from its consequences (each cut at a sentence to fit the 120 words a body may hold),
 * `source: adr-NNNN`, tagged with its set (the folder). Rejected and deprecated ADRs are shelved.
 */
export function adrFact(adr: Adr, set: string, file: string): PlannedFact {
  const name = `ADR ${adr.number}`
  const what = firstWords(adr.decision, 60) || `${adr.title}.`
  const why = firstWords(adr.context, 30) || `recorded in ${name}.`
  const how = firstWords(adr.consequences, 22) || `follow ${name}.`
  const tag = tagOf(set).slice(0, 32)
  return {
    key: `adr:${tag}:${adr.number}`,
    file,
    line: 1,
    input: {
      title: shortTitle(adr.title) || name,
      body: `${what}\nWhy: ${why}\nHow to apply: ${how}`,
      type: 'decision',
      confidence: adr.state === 'proposed' ? 'low' : 'high',
      source: adrSource(adr.number),
      tags: ['adr', `adr-set:${tag}`],
      supersede: false, // ADRs name what they replace; two decisions never replace each other by wording alone
    },
    replaces: adr.supersedes.map((n) => `adr:${tag}:${n}`),
    replacedBy: adr.supersededBy.map((n) => `adr:${tag}:${n}`),
    ...((adr.state === 'rejected' || adr.state === 'deprecated') && {
      shelved: `${name} is ${adr.state} (status: ${adr.status}): recorded, not loaded`,
    }),
  }
}

const MANDATORY = /\b(must|never|always|do not|don't|required|forbidden|only)\b/i

/**
 * A rule of an instruction file as one fact: a `constraint` when it says must, never, always, do not
 * or only, a `convention` otherwise; titled by its first sentence, the whole rule as the body, tagged
 * with the file's kind and its heading.
 */
export function ruleFact(rule: Rule, kind: string, file: string): PlannedFact {
  const sentence = /^(.+?[.!?])(\s|$)/.exec(rule.text)?.[1] ?? rule.text
  const title = shortTitle(sentence)
  const tags = [kind, ...(rule.heading ? [tagOf(rule.heading)] : [])]
  return {
    key: `rule:${kind}:${rule.heading ? tagOf(rule.heading) : ''}:${title.toLowerCase()}`,
    file,
    line: rule.line,
    input: {
      title,
      body: firstWords(rule.text, 120),
      type: MANDATORY.test(rule.text) ? 'constraint' : 'convention',
      confidence: 'high',
      source: 'code',
      tags,
    },
    replaces: [],
    replacedBy: [],
  }
}

/** The key of a stored fact that an ingest wrote (`PlannedFact.key`), or undefined for any other fact. */
export function keyOfFact(fact: Pick<FactInput, 'title' | 'source' | 'tags'>): string | undefined {
  const tags = fact.tags ?? []
  const set = tags.find((t) => t.startsWith('adr-set:'))
  const adr = /^adr-0*(\d+)$/.exec(fact.source ?? '')
  if (set && adr && tags.includes('adr')) return `adr:${set.slice('adr-set:'.length)}:${Number(adr[1])}`
  if (fact.source === 'code' && RULE_KINDS.has(tags[0] ?? ''))
    return `rule:${tags[0]}:${tags[1] ?? ''}:${fact.title.toLowerCase()}`
  return undefined
}

const RULE_KINDS = new Set(['claude-md', 'agents-md', 'cursor-rules', 'copilot-instructions'])
