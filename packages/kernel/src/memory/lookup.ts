import type { Fact } from '../schema/fact.js'
import { factId, isActive } from './facts.js'

/** What a fact is now: its stored status, with `expired` for an active fact past its `expires`. */
export type FactState = 'active' | 'expired' | 'superseded' | 'forgotten'

export function stateOf(fact: Fact, today: string): FactState {
  return fact.status === 'active' && !isActive(fact, today) ? 'expired' : fact.status
}

const ID = /^fact-(\d+)$/i
/** Quotes, brackets and trailing punctuation a model or a person puts around an id. */
const WRAPPING = /^[`'"([{<]+|[`'")\]}>.:]+$/g

/**
 * The fact ids a `memory_search` query names, in order, without repeats, when the query is nothing
 * but ids (separated by spaces, commas or semicolons; `FACT-12` reads as `fact-0012`); undefined
 * for any other query, which is a keyword search.
 */
export function factIdsOf(query: string): string[] | undefined {
  const words = query
    .split(/[\s,;]+/)
    .map((w) => w.replace(WRAPPING, ''))
    .filter(Boolean)
  if (!words.length) return undefined
  const ids: string[] = []
  for (const word of words) {
    const m = ID.exec(word)
    if (!m) return undefined
    ids.push(factId(Number(m[1])))
  }
  return [...new Set(ids)]
}

/** The line after a fact's block when it is not active: what it is now, and what replaced it. */
export function statusLine(fact: Fact, today: string): string | undefined {
  switch (stateOf(fact, today)) {
    case 'active':
      return undefined
    case 'expired':
      return `status: expired (expires ${fact.expires})`
    case 'superseded':
      return `status: superseded${fact.supersededBy ? ` by ${fact.supersededBy}` : ''}`
    case 'forgotten':
      return `status: forgotten${fact.forgotten ? ` on ${fact.forgotten.slice(0, 10)}` : ''}${fact.forgottenReason ? `: ${fact.forgottenReason}` : ''}`
  }
}

/** One fact of a supersedes chain and what it is now. */
export interface HistoryEntry {
  fact: Fact
  state: FactState
}

/**
 * The supersedes chain through `start`, oldest first: back along `supersedes`, forward along
 * `supersededBy`. A link to a fact that does not exist, or back to one already in the chain (a
 * hand-edited file), ends that side.
 */
export async function historyOf(
  start: Fact,
  get: (id: string) => Promise<Fact | undefined>,
  today: string,
): Promise<HistoryEntry[]> {
  const seen = new Set([start.id])
  const older: Fact[] = []
  for (let f = start; f.supersedes !== undefined; ) {
    const prev = await get(f.supersedes)
    if (!prev || seen.has(prev.id)) break
    seen.add(prev.id)
    older.unshift((f = prev))
  }
  const newer: Fact[] = []
  for (let f = start; f.supersededBy !== undefined; ) {
    const next = await get(f.supersededBy)
    if (!next || seen.has(next.id)) break
    seen.add(next.id)
    newer.push((f = next))
  }
  return [...older, start, ...newer].map((fact) => ({ fact, state: stateOf(fact, today) }))
}

/** `fact-0002 · 2026-11-30 · superseded by fact-0003 · API timeout is 30 seconds` */
export function historyLine({ fact, state }: HistoryEntry): string {
  const what =
    state === 'superseded' && fact.supersededBy
      ? `superseded by ${fact.supersededBy}`
      : state === 'forgotten' && fact.forgottenReason
        ? `forgotten: ${fact.forgottenReason}`
        : state
  return `${fact.id} · ${fact.created.slice(0, 10)} · ${what} · ${fact.title}`
}
