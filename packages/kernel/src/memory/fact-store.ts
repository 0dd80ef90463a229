import { isFoundryError } from '../errors.js'
import type { PluginHost } from '../plugin.js'
import type { Fact } from '../schema/fact.js'
import type { StorageProblem } from '../storage.js'
import { createFactSet, type FactSet } from './fact-set.js'
import { dayOf, factNumber } from './facts.js'
import { indexChecksum } from './index-file.js'

/** Beside INDEX.md: the figures a short-lived process needs without reading every fact. */
export const STATS_KEY = 'memory-stats'

interface MemoryStats {
  /** The facts revision these figures describe. */
  revision: string
  active: number
  /** The earliest `expires` among active facts: the figures hold until that day has passed. */
  nextExpiry?: string
  /** The checksum of the INDEX.md text written with these figures (`indexChecksum`), when one was. */
  index?: string
}

/** What list, get and history read: every fact by id. */
export interface FactReader {
  get(id: string): Fact | undefined
  values(): Iterable<Fact>
}

/**
 * The stored facts, seen through caches that are checked against the storage's facts revision. An
 * operation reads the revision once (`revision()`) and hands it to every call it makes, so one
 * operation sees one state and asks the storage once.
 */
export interface FactStore {
  /** The facts revision now: read once per operation. */
  revision(): Promise<string>
  /**
   * The write path's fact set as of `revision` (`force`: a full read whatever the cache). One refresh
   * runs at a time; the others wait for it and check again, so concurrent operations in one process
   * never apply changes to the set side by side. `inSection`: the caller holds the storage's write
   * section, where a refresh started outside may be waiting for that very section (SQLite holds
   * readers back while a section is open): it then reads a set of its own instead of waiting, and
   * installs it with `wrote`.
   */
  facts(revision: string, options?: { force?: boolean; inSection?: boolean }): Promise<FactSet>
  /** After a write inside the exclusive section: the set now describes `revision`. */
  wrote(revision: string, facts: FactSet): void
  /** A write inside the section failed after changing the set (it may hold facts never stored): drop it, so the next operation reads storage. */
  discard(): void
  /** The fact set when it describes `revision`, else undefined. */
  current(revision: string): FactSet | undefined
  /** A search hit's fact as of `revision`: from the current set, the facts fetched at this revision, or storage. */
  hit(id: string, revision: string): Promise<Fact | undefined>
  /**
   * One fact from storage, or undefined. A record that cannot be read (CORRUPT) reads as missing and
   * is reported once through `onProblem`, as `list` does; `broken` hears of it too.
   */
  read(id: string, broken?: () => void): Promise<Fact | undefined>
  /**
   * Every fact as a reader sees it (list, get, history): the fact set when current, else one read of
   * storage with the set's repair applied (an active fact a newer one names in `supersedes` reads as
   * superseded by it), without the structures only a write needs.
   */
  reader(revision: string): Promise<FactReader>
  /** Active facts as of `revision`: the set when current, else the stored figures, else a full read. */
  activeCount(revision: string): Promise<number>
  /** The stored figures, when they describe `revision` and no expiry has passed since. */
  stats(revision: string): Promise<MemoryStats | undefined>
  /** Store the figures of `facts` at `revision`, naming the INDEX.md text written with them (a cache: relaxed durability). */
  saveStats(facts: FactSet, revision: string, indexText?: string): Promise<void>
}

export function createFactStore(ctx: PluginHost): FactStore {
  const { storage } = ctx
  let cache: { revision: string; facts: FactSet } | undefined
  /** The one refresh of `cache` in flight. */
  let loading: Promise<FactSet> | undefined
  /** Facts fetched for search hits while the revision stays the same (a server searches often, rarely loads all). */
  let fetched: { revision: string; facts: Map<string, Fact> } = { revision: '', facts: new Map() }
  /** Every fact as last read for a reader while no fact set was current. */
  let lastRead: { revision: string; facts: Map<string, Fact> } | undefined
  let counted: { revision: string; day: string; active: number } | undefined
  /** Problems already reported, as `key message`: each once per process, however often it is met. */
  const reported = new Set<string>()

  const report = (problem: StorageProblem) => {
    if (reported.has(`${problem.key} ${problem.message}`)) return
    reported.add(`${problem.key} ${problem.message}`)
    ctx.onProblem(problem)
  }

  async function read(id: string, broken?: () => void): Promise<Fact | undefined> {
    try {
      return await storage.get('facts', id)
    } catch (error) {
      if (!isFoundryError(error) || error.code !== 'CORRUPT') throw error
      broken?.()
      report({ collection: 'facts', key: id, location: storage.locate('facts', id), message: error.message })
      return undefined
    }
  }

  async function facts(revision: string, options: { force?: boolean; inSection?: boolean } = {}): Promise<FactSet> {
    const force = options.force === true
    for (;;) {
      if (!force && cache?.revision === revision) return cache.facts
      if (loading) {
        if (options.inSection) return readAll() // never wait inside the section for a refresh that may wait for it
        await loading.catch(() => {})
        continue // another refresh finished: check it against our revision
      }
      const refresh = (loading = refreshFacts(revision, force))
      try {
        return await refresh
      } finally {
        if (loading === refresh) loading = undefined
      }
    }
  }

  async function refreshFacts(revision: string, force: boolean): Promise<FactSet> {
    if (!force && cache && storage.changes) {
      const keys = await storage.changes('facts', cache.revision)
      if (keys) {
        const set = cache.facts
        for (const key of new Set(keys)) {
          let broken = false
          const fact = await read(key, () => (broken = true))
          if (fact) set.set(fact)
          else set.delete(key)
          if (broken) set.hold(key) // a record that cannot be read keeps its id: never overwritten
        }
        cache = { revision, facts: set }
        return set
      }
    }
    cache = { revision, facts: await readAll() }
    // Having read everything, leave the figures for the next short-lived process (facts imported or
    // written by other means have none yet). Only a cache: a read-only store must not fail the read.
    if (!(await stats(revision))) await saveStats(cache.facts, revision).catch(() => {})
    return cache.facts
  }

  /** Every fact read into a new set; a record that cannot be read keeps its id (held), never to be overwritten. */
  async function readAll(): Promise<FactSet> {
    const held: string[] = []
    const list = await storage.list('facts', { onProblem: (problem) => (held.push(problem.key), report(problem)) })
    return createFactSet(list, held)
  }

  async function hit(id: string, revision: string): Promise<Fact | undefined> {
    const set = cache?.revision === revision ? cache.facts : undefined
    if (fetched.revision !== revision) fetched = { revision, facts: new Map() }
    let fact = set?.get(id) ?? fetched.facts.get(id)
    if (!fact && (fact = await read(id))) fetched.facts.set(id, fact)
    return fact
  }

  async function reader(revision: string): Promise<FactReader> {
    if (cache?.revision === revision) return cache.facts
    if (lastRead?.revision === revision) return lastRead.facts
    const stored = await storage.list('facts', { onProblem: report })
    const claims = new Map<string, string>()
    for (const fact of stored) if (fact.supersedes !== undefined && factNumber(fact.supersedes) < factNumber(fact.id)) claims.set(fact.supersedes, fact.id)
    const all = new Map<string, Fact>()
    for (const fact of stored) {
      const claimant = fact.status === 'active' ? claims.get(fact.id) : undefined
      all.set(fact.id, claimant === undefined ? fact : { ...fact, status: 'superseded', supersededBy: claimant })
    }
    lastRead = { revision, facts: all }
    return all
  }

  async function stats(revision: string): Promise<MemoryStats | undefined> {
    try {
      const stored = JSON.parse((await storage.get('meta', STATS_KEY)) ?? 'null') as MemoryStats | null
      if (!stored || stored.revision !== revision) return undefined
      return stored.nextExpiry === undefined || dayOf(ctx.now()) <= stored.nextExpiry ? stored : undefined
    } catch {
      return undefined
    }
  }

  async function saveStats(set: FactSet, revision: string, indexText?: string): Promise<void> {
    const today = dayOf(ctx.now())
    const figures: MemoryStats = { revision, active: set.activeCount(today) }
    const nextExpiry = set.nextExpiry(today)
    if (nextExpiry) figures.nextExpiry = nextExpiry
    if (indexText !== undefined) figures.index = indexChecksum(indexText)
    await storage.put('meta', STATS_KEY, JSON.stringify(figures), { durability: 'relaxed' })
  }

  async function activeCount(revision: string, again = true): Promise<number> {
    const today = dayOf(ctx.now())
    if (cache?.revision === revision) return cache.facts.activeCount(today)
    if (counted?.revision === revision && counted.day === today) return counted.active
    const stored = await stats(revision)
    if (!stored && again) {
      // The facts moved on since the operation read the revision (a write landed meanwhile): the
      // count as of now is as good, and its figures are stored; a full read is the last resort
      // (outside the write section it would wait for a writer that may be waiting for it).
      const now = await storage.revision('facts')
      if (now !== revision) return activeCount(now, false)
    }
    const active = stored?.active ?? (await facts(revision)).activeCount(today)
    counted = { revision, day: today, active }
    return active
  }

  return {
    revision: () => storage.revision('facts'),
    facts,
    wrote: (revision, set) => void (cache = { revision, facts: set }),
    discard: () => void (cache = undefined),
    current: (revision) => (cache?.revision === revision ? cache.facts : undefined),
    hit,
    read,
    reader,
    activeCount,
    stats,
    saveStats,
  }
}
