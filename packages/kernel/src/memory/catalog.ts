import { FoundryError, isFoundryError } from '../errors.js'
import { FACT_ID_PATTERN, type Fact, type FactInput } from '../schema/fact.js'
import type { Storage } from '../storage.js'
import { createDraft, draftCandidates, readHead, type CatalogDraft, type IndexStamp } from './catalog-draft.js'
import { RecordCache } from './catalog-store.js'
import {
  CATALOG_FORMAT,
  SHARD_FACTS,
  shardsFor,
  TERM_SHARDS,
  termKey,
  termsOf,
  type CatalogHead,
} from './catalog-records.js'
import { probeSubjects, type FactSet } from './fact-set.js'
import { factId, factNumber, SIMILAR_SCAN, subjectTokens, titleTokens } from './facts.js'
import type { MemoryIndex } from './index-file.js'
import { indexListOf, indexOfDraft } from './index-list.js'
import type { WriteCandidates } from './plan-write.js'

const FACT_ID = new RegExp(FACT_ID_PATTERN)

/**
 * What a write section works on: the catalog as of the section's facts revision. Load a write's
 * candidates (`prepare`), plan with it (`planWrite`), store, record what was stored (`set`), store
 * the repairs it found, then render the index and save (`FactCatalog.commit`).
 */
export interface WriteSet extends WriteCandidates {
  /** Read what a write of `input` asks: its terms' shards, the facts they list, the fact it `supersedes`. */
  prepare(input: FactInput): Promise<void>
  /** One fact, read once (for forget). */
  fact(id: string): Promise<Fact | undefined>
  /** Record a fact just stored. */
  set(fact: Fact): Promise<void>
  /**
   * Facts found active in storage although a newer fact names them in `supersedes` (a writer died
   * between its two puts), already marked superseded here: the caller stores them. Each once.
   */
  takeRepairs(): Fact[]
  /** INDEX.md as of this set. */
  index(budget: number, today: string): Promise<MemoryIndex>
  readonly draft: CatalogDraft
}

/** The write catalog of one storage (records in catalog-records.ts); one per process. */
export interface FactCatalog {
  /**
   * Inside the exclusive section: the catalog as of `revision`, from its head when that names the
   * revision, caught up through `storage.changes` when it names an older one, else (or with
   * `force`, or when a record is stale or unreadable) rebuilt from one full read.
   */
  open(revision: string, options?: { force?: boolean }): Promise<WriteSet>
  /**
   * Save the set as of `revision` (after its writes). `index`: the day and checksum of the INDEX.md
   * just saved from it; omitted, INDEX.md is marked stale. A cache: a failure is swallowed, and the
   * next `open` catches up.
   */
  commit(set: WriteSet, revision: string, index?: IndexStamp): Promise<void>
  /** Drop a set whose writes failed: never saved, and none of its records reused. */
  discard(set: WriteSet): void
  /**
   * Outside the section: the catalog as of a head (`known`, else the stored one), with what writes of
   * `inputs` read (`prepare`) and the records a supersede would change read ahead. Undefined when
   * the storage keeps no change log, the catalog is to be rebuilt, or a record read changed meanwhile.
   */
  ahead(inputs: FactInput[], known?: CatalogHead, plan?: AheadPlan): Promise<CatalogAhead | undefined>
  /**
   * Inside the section, first: the facts revision, the catalog head and the facts changed since
   * `ahead`'s head, asked together (a storage that gathers statements sends them in one round trip),
   * and `ahead` brought up to date from those facts (`CatalogDraft.adopt`). `set` is undefined when
   * the head no longer describes the revision or was built anew: then `open` the revision.
   */
  openAhead(ahead: CatalogAhead): Promise<{ revision: string; set?: WriteSet }>
}

/** The fact a write of `input` would supersede, planned on the candidates read ahead (`planWrite`); undefined for none. */
export type AheadPlan = (input: FactInput, candidates: WriteCandidates) => string | undefined

/** What a write read before its section (`FactCatalog.ahead`): a draft as of the head it read. */
export interface CatalogAhead {
  readonly draft: CatalogDraft
  /**
   * The catalog's epoch when it began: a draft read ahead shares the cached records (a copy cost more
   * than a round trip), which another section of this process may change in place, so it is used
   * only when no section was opened and no record changed since it began.
   */
  readonly after: number
}

export interface CatalogOptions {
  storage: Storage
  /** One fact from storage; undefined when missing, and when unreadable (then `broken` is called). */
  read(id: string, broken?: () => void): Promise<Fact | undefined>
  /**
   * Every fact, those that cannot be read held (a full read). Bodies may be left out (''): the
   * catalog keeps none, and a repair taken from the set is read again whole before it is stored.
   */
  readAll(): Promise<FactSet>
  /** INDEX.md's budget in tokens: how much of the index order the catalog keeps. */
  budget: number
  today(): string
}

export function createCatalog({ storage, read, readAll, budget, today }: CatalogOptions): FactCatalog {
  const cache = new RecordCache()
  /** Bumped by every section this process opens and every record changed in place (see `CatalogAhead.after`). */
  let epoch = 0
  /** Whether the last section caught up from another process's writes: the next reads the stored head ahead, not its own. */
  let contended = false
  const touched = () => void epoch++

  async function open(revision: string, options: { force?: boolean } = {}): Promise<WriteSet> {
    epoch++
    const head = options.force ? undefined : await readHead(storage)
    if (head) {
      try {
        // What changed since the head, known before a grown catalog is split (a rebuild needs no split).
        const keys = head.revision === revision ? [] : await storage.changes?.('facts', head.revision)
        if (keys) {
          const draft = grown(head) ? await grow(head) : createDraft(storage, cache, head, read, touched)
          const repairs = keys.length ? await catchUp(storage, read, draft, keys) : []
          if (!draft.broken) return writeSet(draft, repairs)
        }
      } catch (error) {
        if (!isFoundryError(error) || error.code !== 'CORRUPT') throw error
      }
    }
    return rebuild()
  }

  async function ahead(inputs: FactInput[], known?: CatalogHead, plan?: AheadPlan): Promise<CatalogAhead | undefined> {
    if (!storage.changes) return undefined
    const after = epoch
    try {
      const head = (contended ? undefined : known) ?? (await readHead(storage))
      if (!head || grown(head)) return undefined
      const draft = createDraft(storage, cache, head, read)
      for (const input of inputs) await prepare(draft, input)
      if (plan) await preloadSuperseded(draft, inputs, plan)
      return { draft, after }
    } catch (error) {
      if (!isFoundryError(error) || error.code !== 'CORRUPT') throw error
      // A record the head names was written since: from the head as stored now, else (another
      // process wrote meanwhile) in the section.
      return known ? ahead(inputs, undefined, plan) : undefined
    }
  }

  async function openAhead({ draft: before, after }: CatalogAhead): Promise<{ revision: string; set?: WriteSet }> {
    if (after !== epoch++) return { revision: await storage.revision('facts') }
    const [revision, head, keys] = await Promise.all([
      storage.revision('facts'),
      readHead(storage),
      storage.changes!('facts', before.head.revision),
    ])
    const same = head && head.base === before.head.base && head.shards === before.head.shards
    contended = keys?.length !== 0
    const near = keys && keys.length <= AHEAD_CHANGES_MAX
    if (!same || !near || head.revision !== revision || grown(head)) return { revision }
    const changed = new Map(await Promise.all([...new Set(keys)].map(async (key) => [key, await read(key)] as const)))
    const draft = createDraft(storage, cache, head, read, touched)
    draft.adopt(before, changed)
    return { revision, set: writeSet(draft, []) }
  }

  /**
   * A catalog grown past its shards, split into more without reading a fact (`CatalogDraft.split`):
   * every shard and membership chunk written anew at the next commit, the index list kept.
   */
  async function grow(stored: CatalogHead): Promise<CatalogDraft> {
    const shards = shardsFor(stored.active)
    const head: CatalogHead = { ...stored, shards, terms: new Array<number>(shards).fill(0), members: {} }
    const draft = createDraft(storage, cache, head, read, touched)
    await draft.split(stored)
    return draft
  }

  /** The slow path: every fact read once, the whole catalog written anew at the next commit. */
  async function rebuild(): Promise<WriteSet> {
    cache.clear()
    const all = await readAll()
    const shards = shardsFor(all.activeCount(today()))
    const seq = Date.now()
    const head: CatalogHead = {
      format: CATALOG_FORMAT,
      revision: '',
      seq,
      base: seq,
      shards,
      maxNumber: all.maxNumber,
      active: 0,
      expiring: {},
      terms: new Array<number>(shards).fill(0),
      members: {},
      index: 0,
      indexDay: '',
      indexSum: '',
    }
    const draft = createDraft(storage, cache, head, read, touched)
    const ordered = [...all.ordered()]
    for (const fact of ordered) await draft.add(fact, false)
    draft.setList(indexListOf(ordered, all.activeCount(today()), budget, today()))
    return writeSet(draft, await whole(all.takeRepairs()))
  }

  /** Repairs taken from a set `readAll` read without bodies, whole: each fact read again with its repair applied. */
  async function whole(repairs: Fact[]): Promise<Fact[]> {
    const out: Fact[] = []
    for (const { id, status, supersededBy } of repairs) {
      const fact = await read(id)
      if (fact) out.push({ ...fact, status, supersededBy })
    }
    return out
  }

  /** Every active fact in index order, read from storage (the index list's slow path). */
  async function activeInOrder(): Promise<Fact[]> {
    return [...(await readAll()).ordered()]
  }

  function writeSet(draft: CatalogDraft, repairs: Fact[]): WriteSet {
    const candidates = draftCandidates(draft)
    return {
      draft,
      get maxNumber() {
        return candidates.maxNumber
      },
      get: candidates.get,
      findDuplicate: candidates.findDuplicate,
      statementCandidates: candidates.statementCandidates,
      subjectCandidates: candidates.subjectCandidates,
      prepare: async (input) => {
        try {
          await prepare(draft, input)
        } catch (error) {
          if (!isFoundryError(error) || error.code !== 'CORRUPT') throw error
          throw new FoundryError('CORRUPT', `the write catalog is stale (${error.message}); it is rebuilt on open`)
        }
      },
      fact: (id) => draft.fact(id),
      set: (fact) => draft.set(fact),
      takeRepairs: () => repairs.splice(0),
      index: (tokens, day) => indexOfDraft(draft, tokens, day, activeInOrder),
    }
  }

  return {
    open,
    ahead,
    openAhead,
    async commit(set, revision, index) {
      try {
        await set.draft.save(revision, index ?? { day: '', sum: '' })
      } catch {
        cache.clear() // a cache: the next open catches up from the head that stands
      }
    },
    discard(set) {
      set.draft.discard()
      cache.clear() // the draft changed records in place: none is trusted again without a read
    },
  }
}

/** The facts changed since the draft's head (`keys`, from the storage's change log) applied to it; the repairs they call for. */
async function catchUp(
  storage: Storage,
  read: CatalogOptions['read'],
  draft: CatalogDraft,
  keys: string[],
): Promise<Fact[]> {
  const changed: Fact[] = []
  let recount = false
  // The changed facts (a storage with a change log brings them along), then every catalog record
  // setting them touches, read together before they are set one by one.
  const found = await Promise.all(
    [...new Set(keys)].map(async (key) => {
      let broken = false
      const fact = await read(key, () => (broken = true))
      return { key, fact, broken }
    }),
  )
  await draft.preload(
    found.map((f) => f.key).filter((key) => FACT_ID.test(key)),
    found.flatMap((f) => (f.fact ? termsOf(f.fact) : [])),
  )
  for (const { key, fact, broken } of found) {
    if (fact) {
      await draft.set(fact)
      changed.push(fact)
      continue
    }
    await draft.remove(key)
    if (!FACT_ID.test(key)) continue
    if (broken)
      draft.head.maxNumber = Math.max(draft.head.maxNumber, factNumber(key)) // held: never given out
    else if (factNumber(key) >= draft.head.maxNumber) recount = true
  }
  if (recount)
    draft.head.maxNumber = Math.max(0, ...(await storage.keys('facts')).filter((k) => FACT_ID.test(k)).map(factNumber))
  // A newer fact's `supersedes` wins over an older fact still active (a writer died between its two puts).
  const repairs: Fact[] = []
  for (const fact of changed) {
    if (fact.supersedes === undefined || factNumber(fact.supersedes) >= factNumber(fact.id)) continue
    const old = await draft.fact(fact.supersedes)
    if (old?.status !== 'active') continue
    const repaired: Fact = { ...old, status: 'superseded', supersededBy: fact.id }
    await draft.set(repaired)
    repairs.push(repaired)
  }
  return repairs
}

/**
 * The most changes since a head read ahead that the section patches its records from; past it (a
 * process that wrote long ago), the records are read again under the lock.
 */
const AHEAD_CHANGES_MAX = 1024

/** Grown past its shards: split into more (`grow`; each doubling of the facts rewrites the catalog once). */
const grown = (head: CatalogHead) => head.shards < TERM_SHARDS && head.active > head.shards * SHARD_FACTS

/**
 * The records a supersede by one of `inputs` changes, read together: the membership chunk of the fact
 * it would supersede as planned now, and the shards that fact is listed in.
 */
async function preloadSuperseded(draft: CatalogDraft, inputs: FactInput[], plan: AheadPlan): Promise<void> {
  const candidates = draftCandidates(draft)
  const ids = inputs.flatMap((input) => {
    try {
      return plan(input, candidates) ?? []
    } catch {
      return [] // refused: the section refuses it again
    }
  })
  if (ids.length) await draft.preload(ids, [])
}

/** Load the shards of the write's terms and the facts `planWrite` will ask for (see `draftCandidates`). */
async function prepare(draft: CatalogDraft, input: FactInput): Promise<void> {
  const fact = { type: input.type, scope: input.scope ?? 'project', title: input.title.trim().replace(/\s+/g, ' ') }
  // The records the write's own fact will touch too (the next id's membership, the index list), in the same round trip.
  await draft.preload([factId(draft.head.maxNumber + 1)], termsOf(fact))
  const ids = new Set<string>()
  for (const term of termsOf(fact)) {
    const local = term.slice(term.lastIndexOf('\u0000') + 1)
    if (local.startsWith('t') || local.startsWith('k')) for (const id of draft.postings(term)) ids.add(id)
  }
  const tokens = [...subjectTokens(titleTokens(fact.title))]
  for (const id of probeSubjects(
    tokens.map((t) => draft.postings(termKey(fact, `s${t}`))),
    SIMILAR_SCAN,
  ))
    ids.add(id)
  if (input.supersedes !== undefined) ids.add(input.supersedes)
  // Asked for together: a storage that gathers reads (PostgreSQL) fetches them in one round trip.
  await Promise.all([...ids].map((id) => draft.fact(id)))
}
