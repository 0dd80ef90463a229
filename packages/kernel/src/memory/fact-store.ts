import { isFoundryError } from '../errors.js'
import type { PluginHost } from '../plugin.js'
import type { Fact, FactInput } from '../schema/fact.js'
import type { Storage, StorageProblem } from '../storage.js'
import { readHead } from './catalog-draft.js'
import { membersKey, membersRecord, stampOf, type CatalogHead } from './catalog-records.js'
import { openRecords, RecordCache } from './catalog-store.js'
import { createCatalog, type AheadPlan, type CatalogAhead, type FactCatalog, type WriteSet } from './catalog.js'
import { createFactSet, type FactSet } from './fact-set.js'
import { claimOf, dayOf, factNumber } from './facts.js'
import { indexChecksum } from './index-file.js'
import { planWrite } from './plan-write.js'
import { activeOn } from './index-list.js'
import { pause } from '../pause.js'

/** What list, get and history read: every fact by id. */
export interface FactReader {
  get(id: string): Fact | undefined
  values(): Iterable<Fact>
}

/** The most facts kept for search hits at one revision. */
const HITS_MAX = 1000
/** Facts a full read holds at once (`FactStore.pages`): enough reads to overlap, few enough to keep memory flat. */
const PAGE = 256

/**
 * The stored facts, without holding them: the write path works on the persisted write catalog
 * (catalog.ts), counts come from its head, and readers read storage. An operation reads the facts
 * revision once (`revision()`) and hands it to every call it makes.
 */
export interface FactStore {
  /** The facts revision now: read once per operation. */
  revision(): Promise<string>
  /**
   * Inside the storage's exclusive section only: the write catalog as of `revision`, with what a
   * write of each of `inputs` asks loaded (`force`: rebuilt from a full read).
   */
  facts(revision: string, options?: { force?: boolean; inputs?: FactInput[] }): Promise<WriteSet>
  /**
   * After the section's writes: the catalog saved as of `revision` (a cache: never fails the write).
   * `indexText`: the INDEX.md text just saved from this set (its checksum goes in the head written
   * after it); omitted when INDEX.md was not rewritten, which leaves it stale.
   */
  wrote(revision: string, facts: WriteSet, indexText?: string): Promise<void>
  /**
   * Outside the storage's exclusive section, before a write: what writes of `inputs` will read in it,
   * read ahead (see `FactCatalog.ahead`); undefined when it cannot be. Pass it to `section`.
   */
  ahead(inputs: FactInput[]): Promise<CatalogAhead | undefined>
  /**
   * Inside the section, first: the facts revision and the write catalog as of it, with what writes of
   * `inputs` ask loaded; with `ahead`, the catalog read ahead is caught up from the change log
   * instead of read again (see `FactCatalog.openAhead`).
   */
  section(options: { inputs: FactInput[]; ahead?: CatalogAhead }): Promise<{ revision: string; facts: WriteSet }>
  /** After a section that wrote no fact: the catalog saved only if it had to catch up or be rebuilt (INDEX.md then stale). */
  kept(revision: string, facts: WriteSet): Promise<void>
  /** A batch failed after it began changing `facts` (its draft may hold facts never stored): the draft is dropped, never saved, and nothing of it is reused. */
  discard(facts: WriteSet): void
  /** A search hit's fact as of `revision`: the facts fetched at this revision, or storage. */
  hit(id: string, revision: string): Promise<Fact | undefined>
  /**
   * One fact from storage, or undefined. A record that cannot be read (CORRUPT) reads as missing and
   * is reported once through `onProblem`, as `list` does; `broken` hears of it too.
   */
  read(id: string, broken?: () => void): Promise<Fact | undefined>
  /**
   * Every fact as a reader sees it (list): one read of storage with the catalog's repair applied (an
   * active fact a newer one names in `supersedes` reads as superseded by it).
   */
  reader(revision: string): Promise<FactReader>
  /**
   * Every fact in storage, a page at a time in key order, for a full read that must not hold them all
   * (a rebuild at 100k facts): `visit` gets each page's readable facts before the next is read. A
   * record that cannot be read is reported once and named to `held`. No repair is applied.
   */
  pages(visit: (facts: Fact[]) => void | Promise<void>, held?: (id: string) => void): Promise<void>
  /** One fact as of `revision` (get, history), with the catalog brought up to date first so crash repairs are stored. */
  fact(id: string, revision: string): Promise<Fact | undefined>
  /** The write catalog brought up to date with `revision` and saved (rebuilt from a full read when it does not describe the facts). */
  catchUp(revision: string): Promise<void>
  /** Active facts as of `revision`: the catalog's head, brought up to date when it is behind. */
  activeCount(revision: string): Promise<number>
  /**
   * A page of the facts active on `today` as of `revision`: the first `limit` ids by number (the last
   * ones, newest first, with `newest`) and how many there are, from the catalog without reading a
   * fact: its head (the count) and only the members chunks the page falls in, read in order until it
   * is full. Undefined when a record is stale (read the facts).
   */
  activePage(revision: string, limit: number, newest?: boolean): Promise<{ ids: string[]; total: number } | undefined>
  /**
   * Whether `text` (INDEX.md as stored) is the index last saved with the catalog and still describes
   * `revision` today: a head naming the revision, the text's checksum, no listed fact expired since.
   */
  indexCurrent(revision: string, text: string): Promise<boolean>
}

/** The fact a write would supersede, planned on the candidates read ahead (see `FactCatalog.ahead`). */
const supersedes =
  (now: () => Date): AheadPlan =>
  (input, candidates) => {
    const plan = planWrite(input, candidates, now())
    return plan.action === 'created' ? plan.superseded?.id : undefined
  }

/** `FactStore.section`: `facts` opens the catalog when nothing was read ahead, or what was cannot be caught up. */
async function openSection(
  catalog: FactCatalog,
  storage: Storage,
  facts: (revision: string, options: { inputs: FactInput[] }) => Promise<WriteSet>,
  options: { inputs: FactInput[]; ahead?: CatalogAhead },
): Promise<{ revision: string; facts: WriteSet }> {
  const { inputs, ahead } = options
  if (ahead) {
    try {
      const { revision, set } = await catalog.openAhead(ahead)
      if (set) {
        for (const input of inputs) await set.prepare(input)
        return { revision, facts: set }
      }
    } catch (error) {
      if (!isFoundryError(error) || error.code !== 'CORRUPT') throw error
    }
  }
  const revision = await storage.revision('facts')
  return { revision, facts: await facts(revision, { inputs }) }
}

/** `FactStore.pages`: every key, then a page of facts at a time. */
async function readPages(
  storage: Storage,
  read: (id: string, broken?: () => void) => Promise<Fact | undefined>,
  report: (problem: StorageProblem) => void,
  visit: (facts: Fact[]) => void | Promise<void>,
  held?: (id: string) => void,
): Promise<void> {
  // A misnamed file is reported, and held as `list` held it: its name is taken.
  const keys = await storage.keys('facts', '', (problem) => (held?.(problem.key), report(problem)))
  for (let at = 0; at < keys.length; at += PAGE) {
    const page = await Promise.all(keys.slice(at, at + PAGE).map((key) => read(key, () => held?.(key))))
    await visit(page.filter((fact): fact is Fact => fact !== undefined)) // undefined: deleted since it was listed
    await pause() // a full read of 100k facts runs for seconds
  }
}

/**
 * Every fact read into a new set, each without its body (the catalog keeps none: see
 * `CatalogOptions.readAll`); a record that cannot be read keeps its id (held), never to be overwritten.
 */
async function readCards(pages: FactStore['pages']): Promise<FactSet> {
  const held: string[] = []
  const cards: Fact[] = []
  await pages(
    (page) => {
      for (const fact of page) cards.push({ ...fact, body: '' })
    },
    (id) => held.push(id),
  )
  return createFactSet(cards, held)
}

export function createFactStore(ctx: PluginHost): FactStore {
  const { storage } = ctx
  /** Facts fetched for search hits while the revision stays the same. */
  let fetched: { revision: string; facts: Map<string, Fact> } = { revision: '', facts: new Map() }
  /** The catalog head last seen: reused while it names the revision an operation reads. */
  let lastHead: CatalogHead | undefined
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

  const pages = (visit: (facts: Fact[]) => void | Promise<void>, held?: (id: string) => void) =>
    readPages(storage, read, report, visit, held)
  const readAll = () => readCards(pages)

  const today = () => dayOf(ctx.now())
  const catalog = createCatalog({ storage, read, readAll, budget: ctx.config.indexTokenBudget, today })

  async function facts(revision: string, options: { force?: boolean; inputs?: FactInput[] } = {}): Promise<WriteSet> {
    try {
      const set = await catalog.open(revision, options)
      for (const input of options.inputs ?? []) await set.prepare(input)
      return set
    } catch (error) {
      if (options.force || !isFoundryError(error) || error.code !== 'CORRUPT') throw error
      return facts(revision, { ...options, force: true }) // a record the head names was stale: rebuilt
    }
  }

  async function wrote(revision: string, set: WriteSet, indexText?: string): Promise<void> {
    await catalog.commit(
      set,
      revision,
      indexText === undefined ? undefined : { day: today(), sum: indexChecksum(indexText) },
    )
    lastHead = set.draft.head.revision === revision ? set.draft.head : undefined
  }

  /** The head naming `revision`, else the catalog brought up to date in a section of its own (its repairs stored). */
  async function head(revision: string): Promise<CatalogHead> {
    if (lastHead?.revision === revision) return lastHead
    const stored = await readHead(storage)
    if (stored?.revision === revision) return (lastHead = stored)
    const refresh = async () => {
      const now = await storage.revision('facts')
      const set = await catalog.open(now)
      for (const repaired of set.takeRepairs()) await storage.put('facts', repaired.id, repaired)
      const after = await storage.revision('facts')
      await set.index(ctx.config.indexTokenBudget, today()) // the list checked (drained: read again) before it is saved
      await wrote(after, set) // INDEX.md is left to readIndex, which sees it stale
      return set.draft.head
    }
    try {
      return await storage.exclusive(refresh)
    } catch {
      // A store this process may not write (read-only, the section busy): the count as of now, not saved.
      return (await catalog.open(await storage.revision('facts'))).draft.head
    }
  }

  async function hit(id: string, revision: string): Promise<Fact | undefined> {
    if (fetched.revision !== revision || fetched.facts.size >= HITS_MAX) fetched = { revision, facts: new Map() }
    let fact = fetched.facts.get(id)
    if (!fact && (fact = await read(id))) fetched.facts.set(id, fact)
    return fact
  }

  async function reader(_revision: string): Promise<FactReader> {
    const stored = await storage.list('facts', { onProblem: report })
    // Older id → the newer fact claiming it (a fact claiming nothing sits under `undefined`, which no id looks up).
    const claims = new Map(stored.map((fact) => [claimOf(fact), fact.id] as const))
    const all = new Map<string, Fact>()
    for (const fact of stored) {
      const claimant = fact.status === 'active' ? claims.get(fact.id) : undefined
      all.set(fact.id, claimant === undefined ? fact : { ...fact, status: 'superseded', supersededBy: claimant })
    }
    return all
  }

  async function activePage(
    revision: string,
    limit: number,
    newest = false,
  ): Promise<{ ids: string[]; total: number } | undefined> {
    const stamped = await head(revision)
    const day = today()
    const expired = Object.values(stamped.expiring).filter((date) => date < day).length
    const records = openRecords(storage, new RecordCache(), stamped)
    const chunks = Object.keys(stamped.members)
      .map(Number)
      .sort((a, b) => (newest ? b - a : a - b))
    const ids: string[] = []
    try {
      for (const chunk of chunks) {
        if (ids.length >= limit) break
        const stamp = stampOf(stamped, stamped.members[chunk])
        const members = await records.record(membersKey(chunk), stamp, membersRecord, () => ({ seq: 0, members: {} }))
        const active = Object.keys(members.members)
          .filter((id) => !(stamped.expiring[id]! < day))
          .sort((a, b) => (newest ? factNumber(b) - factNumber(a) : factNumber(a) - factNumber(b)))
        ids.push(...active.slice(0, limit - ids.length))
      }
    } catch (error) {
      if (isFoundryError(error) && error.code === 'CORRUPT') return undefined
      throw error
    }
    return { ids, total: stamped.active - expired }
  }

  async function indexCurrent(revision: string, text: string): Promise<boolean> {
    const stored = lastHead?.revision === revision ? lastHead : await readHead(storage)
    if (stored?.revision !== revision || !stored.indexDay || stored.indexSum !== indexChecksum(text)) return false
    // Stale once a fact listed on that day has expired since.
    const day = today()
    return Object.values(stored.expiring).every((date) => date < stored.indexDay || date >= day)
  }

  return {
    revision: () => storage.revision('facts'),
    facts,
    // The head this process last saved (asking whether it is current would cost a round trip a write).
    ahead: (inputs) =>
      catalog.ahead(
        inputs,
        lastHead,
        supersedes(() => ctx.now()),
      ),
    section: (options) => openSection(catalog, storage, facts, options),
    wrote,
    kept: (revision, set) => (set.draft.from === revision ? Promise.resolve() : wrote(revision, set)),
    discard(set) {
      catalog.discard(set)
      lastHead = undefined
    },
    hit,
    read,
    reader,
    pages,
    async fact(id, revision) {
      await head(revision)
      return read(id)
    },
    catchUp: async (revision) => void (await head(revision)),
    activeCount: async (revision) => activeOn(await head(revision), today()),
    activePage,
    indexCurrent,
  }
}
