import { FoundryError, isFoundryError } from '../errors.js'
import type { Fact, FactType } from '../schema/fact.js'
import type { Storage } from '../storage.js'
import {
  chunkOf,
  HEAD_KEY,
  headRecord,
  INDEX_LIST_KEY,
  indexEntryOf,
  indexListRecord,
  membersKey,
  membersRecord,
  shardOf,
  shardOfHash,
  stampOf,
  termHash,
  termKey,
  termsKey,
  termShardRecord,
  termsOf,
  type CatalogHead,
  type IndexList,
  type MembersChunk,
  type TermShard,
} from './catalog-records.js'
import { openRecords, parseOrUndefined, type RecordCache } from './catalog-store.js'
import { probeSubjects } from './fact-set.js'
import { factNumber, isActive, normalizeText } from './facts.js'
import { bringForward, listInsert, type ChangedFacts } from './catalog-patch.js'
import type { WriteCandidates } from './plan-write.js'
import { pause } from '../pause.js'

/**
 * One operation's working copy of the catalog: records are read on demand (each checked against
 * the stamp the head names), changed in place, and written back by `save`.
 */
export interface CatalogDraft {
  readonly head: CatalogHead
  /** The facts revision the catalog described when the draft was opened ('' for a rebuild). */
  readonly from: string
  /** Read the shards of these terms (see `termsOf`), together. */
  loadTerms(terms: string[]): Promise<void>
  /**
   * Read together what setting facts with these ids and terms will read: the shards of the terms,
   * the ids' membership chunks and the shards those name, the index list. A storage that gathers
   * reads (PostgreSQL) fetches them in two round trips, not one each.
   */
  preload(ids: string[], terms: string[]): Promise<void>
  /** The ids listed under a loaded term. */
  postings(term: string): string[]
  /** A fact as stored (or as changed in this draft), read once; undefined when missing or unreadable. */
  fact(id: string): Promise<Fact | undefined>
  /** Take an active fact out (its terms, membership, count, expiry, index line); false when it was not active here. */
  remove(id: string): Promise<boolean>
  /**
   * Record `fact` as stored now: its old version out, this one in when active, the highest id
   * raised. A stale record met on the way marks the draft `broken` (not saved: the next open rebuilds).
   */
  set(fact: Fact): Promise<void>
  /** A record the head names was found stale after the draft was opened. */
  readonly broken: boolean
  /** Put an active fact in that is not in yet (a rebuild), leaving the index list to `setList`. */
  add(fact: Fact, listed?: boolean): Promise<void>
  /** The facts fetched so far, for `WriteCandidates` (which is synchronous). */
  readonly facts: Map<string, Fact>
  readonly list: () => Promise<IndexList>
  setList(list: IndexList): void
  /**
   * Write every changed record, then the head naming them (relaxed: see catalog-records.ts); nothing
   * when nothing changed. `index`: the INDEX.md saved with this draft (default: the head's as read).
   */
  save(revision: string, index?: IndexStamp): Promise<void>
  /** The draft's writes failed: it is never saved (`save` does nothing). */
  discard(): void
  /**
   * Fill this draft, whose head names no shard or membership yet, from the catalog `from` names at
   * this draft's shard count: each term moved to the shard its stored hash names now
   * (`shardOfHash`), each fact's membership rebuilt from where its ids land. No fact is read.
   */
  split(from: CatalogHead): Promise<void>
  /** The records read so far, by key (as of this draft's head, or changed by it). */
  readonly records: ReadonlyMap<string, { seq: number }>
  /**
   * Take what `ahead` (a draft of the same catalog read before this one's section, no other section
   * of this process between them) read: each record this draft's head stamps as `ahead`'s did as it is, the others
   * brought up to date from `changed` (every fact changed since `ahead`'s head), and its facts,
   * the changed ones as they are now.
   */
  adopt(ahead: CatalogDraft, changed: ChangedFacts): void
}

/** The INDEX.md a head describes: the day it was rendered and its text's checksum (`indexChecksum`); '' for none. */
export interface IndexStamp {
  day: string
  sum: string
}

export function createDraft(
  storage: Storage,
  cache: RecordCache,
  stored: CatalogHead,
  read: (id: string) => Promise<Fact | undefined>,
  touched: () => void = () => {},
): CatalogDraft {
  // The head as read is this draft's own (read anew by every open): changed in place.
  const head = stored
  const from = {
    revision: stored.revision,
    indexDay: stored.indexDay,
    indexSum: stored.indexSum,
    maxNumber: stored.maxNumber,
  }
  const records = openRecords(storage, cache, head, touched)
  const { record, loaded, touch } = records
  const facts = new Map<string, Fact>()
  const unread = new Set<string>()
  let broken = false
  let discarded = false

  const shard = (b: number) => record<TermShard>(termsKey(b), stampOf(head, head.terms[b]), termShardRecord, emptyShard)
  const chunk = (c: number) =>
    record<MembersChunk>(membersKey(c), stampOf(head, head.members[c]), membersRecord, () => ({ seq: 0, members: {} }))
  const list = () =>
    record<IndexList>(INDEX_LIST_KEY, head.index, indexListRecord, () => ({ seq: 0, complete: true, entries: [] }))

  async function remove(id: string): Promise<boolean> {
    const members = await chunk(chunkOf(id))
    const shards = members.members[id]
    if (!shards) return false
    for (const b of shards) {
      const s = await shard(b)
      for (const [term, ids] of Object.entries(s.terms)) {
        const at = ids.indexOf(id)
        if (at < 0) continue
        ids.splice(at, 1)
        if (!ids.length) delete s.terms[term]
      }
      touch(termsKey(b))
    }
    delete members.members[id]
    touch(membersKey(chunkOf(id)))
    head.active--
    delete head.expiring[id]
    const index = await list()
    const at = index.entries.findIndex((e) => e.id === id)
    if (at >= 0) index.entries.splice(at, 1), touch(INDEX_LIST_KEY)
    return true
  }

  async function add(fact: Fact, listed = true): Promise<void> {
    if (fact.status !== 'active') return
    const shards = new Set<number>()
    for (const term of termsOf(fact)) {
      const b = shardOf(term, head.shards)
      const s = await shard(b)
      const ids = (s.terms[termHash(term)] ??= [])
      if (!ids.includes(fact.id)) ids.push(fact.id)
      shards.add(b)
      touch(termsKey(b))
    }
    ;(await chunk(chunkOf(fact.id))).members[fact.id] = [...shards]
    touch(membersKey(chunkOf(fact.id)))
    head.active++
    if (fact.expires !== undefined) head.expiring[fact.id] = fact.expires
    if (!listed) return
    if (listInsert(await list(), indexEntryOf(fact))) touch(INDEX_LIST_KEY)
  }

  return {
    head,
    from: from.revision,
    facts,
    list,
    async loadTerms(terms) {
      await Promise.all([...new Set(terms.map((term) => shardOf(term, head.shards)))].map(shard))
    },
    async preload(ids, terms) {
      const chunks = [...new Set(ids.map(chunkOf))]
      const first = [...new Set(terms.map((term) => shardOf(term, head.shards)))]
      const members = Promise.all(chunks.map(chunk))
      await Promise.all([members, ...first.map(shard), list()])
      const loaded = await members
      const named = new Set(ids.flatMap((id) => loaded.flatMap((c) => c.members[id] ?? [])))
      await Promise.all([...named].filter((b) => !first.includes(b)).map(shard))
    },
    postings(term) {
      const s = loaded.get(termsKey(shardOf(term, head.shards))) as TermShard | undefined
      if (!s) throw new FoundryError('CORRUPT', 'catalog term read before its shard was loaded')
      return s.terms[termHash(term)] ?? []
    },
    async fact(id) {
      if (facts.has(id)) return facts.get(id)
      if (unread.has(id)) return undefined
      const found = await read(id)
      if (found) facts.set(id, found)
      else unread.add(id)
      return found
    },
    remove,
    add,
    get broken() {
      return broken
    },
    async set(fact) {
      try {
        await remove(fact.id)
        await add(fact)
      } catch (error) {
        if (!isFoundryError(error) || error.code !== 'CORRUPT') throw error
        broken = true
      }
      facts.set(fact.id, fact)
      unread.delete(fact.id)
      head.maxNumber = Math.max(head.maxNumber, factNumber(fact.id))
    },
    discard() {
      discarded = true
    },
    async split(from) {
      const { terms, landed } = await splitTerms(storage, cache, from, head.shards)
      for (const [n, moved] of terms) ((await shard(n)).terms = moved), touch(termsKey(n))
      for (const [id, at] of landed) ((await chunk(chunkOf(id))).members[id] = at), touch(membersKey(chunkOf(id)))
    },
    records: loaded,
    adopt(ahead, changed) {
      bringForward(ahead.records, ahead.head, head, changed, (key) => {
        cache.delete(key) // no longer the record its old stamp names
        touched()
      })
      for (const [key, record] of ahead.records) loaded.set(key, record)
      for (const [id, fact] of ahead.facts) if (!changed.has(id)) facts.set(id, fact)
      for (const [id, fact] of changed) fact ? facts.set(id, fact) : unread.add(id)
    },
    setList(next) {
      loaded.set(INDEX_LIST_KEY, next)
      touch(INDEX_LIST_KEY)
    },
    async save(revision, index = { day: head.indexDay, sum: head.indexSum }) {
      if (discarded) return
      if (broken) return void (await storage.delete('meta', HEAD_KEY))
      const same = revision === from.revision && index.day === from.indexDay && index.sum === from.indexSum
      if (!records.dirty.size && same && head.maxNumber === from.maxNumber) return
      await records.save()
      head.revision = revision
      head.indexDay = index.day
      head.indexSum = index.sum
      // Relaxed as well: a head or record lost to a power cut fails the stamp check, and the catalog is rebuilt.
      await storage.put('meta', HEAD_KEY, JSON.stringify(head), { durability: 'relaxed' })
    },
  }
}

const emptyShard = (): TermShard => ({ seq: 0, terms: {} })

/** The terms of the catalog `from` names by the shard their stored hash names at `shards`, and the shards each fact lands in. */
async function splitTerms(
  storage: Storage,
  cache: RecordCache,
  from: CatalogHead,
  shards: number,
): Promise<{ terms: Map<number, TermShard['terms']>; landed: Map<string, number[]> }> {
  const terms = new Map<number, TermShard['terms']>()
  const landed = new Map<string, number[]>()
  for (let b = 0; b < from.shards; b++) {
    if (b % 64 === 63) await pause() // 1024 shards of 24 KB at 100k facts: seconds
    // Read as `from` stamps it, through records of its own: the old shard is not kept.
    const old = await openRecords(storage, cache, from).record<TermShard>(
      termsKey(b),
      stampOf(from, from.terms[b]),
      termShardRecord,
      emptyShard,
    )
    for (const hash in old.terms) {
      const ids = old.terms[hash]!
      const n = shardOfHash(hash, shards)
      let moved = terms.get(n)
      if (!moved) terms.set(n, (moved = {}))
      moved[hash] = ids
      for (const id of ids) {
        const at = landed.get(id)
        if (!at) landed.set(id, [n])
        else if (!at.includes(n)) at.push(n)
      }
    }
  }
  return { terms, landed }
}

/** The head of a catalog read from storage, or undefined when missing, unreadable or of another format. */
export async function readHead(storage: Storage): Promise<CatalogHead | undefined> {
  const text = await storage.get('meta', HEAD_KEY).catch(() => undefined)
  const parsed = text === undefined ? undefined : parseOrUndefined(text)
  return headRecord.check(parsed) ? parsed : undefined
}

/**
 * `WriteCandidates` over a draft whose shards for the write's terms, and the facts they list, are
 * loaded (`prepareWrite`): what a fact set would answer, from the catalog.
 */
export function draftCandidates(draft: CatalogDraft): WriteCandidates {
  // A shard stores a term's hash: a fact listed under it holds the term itself, or is no candidate.
  const listed = (type: FactType, scope: string, term: string) => {
    const key = termKey({ type, scope }, term)
    return draft
      .postings(key)
      .map((id) => draft.facts.get(id))
      .filter((f): f is Fact => f !== undefined && f.type === type && f.scope === scope && termsOf(f).includes(key))
  }
  return {
    get maxNumber() {
      return draft.head.maxNumber
    },
    get: (id) => draft.facts.get(id),
    findDuplicate(fact, today) {
      const body = normalizeText(fact.body)
      return listed(fact.type, fact.scope, `t${normalizeText(fact.title)}`).find(
        (f) => isActive(f, today) && normalizeText(f.body) === body,
      )
    },
    statementCandidates(type, scope, keys, today) {
      const out = new Map<string, Fact>()
      for (const k of keys) for (const f of listed(type, scope, `k${k}`)) if (isActive(f, today)) out.set(f.id, f)
      return [...out.values()]
    },
    subjectCandidates(type, scope, tokens, today, limit = Infinity) {
      const ids = probeSubjects(
        [...tokens].map((t) => draft.postings(termKey({ type, scope }, `s${t}`))),
        limit,
      )
      return [...ids]
        .map((id) => draft.facts.get(id))
        .filter((f): f is Fact => f !== undefined && f.type === type && f.scope === scope && isActive(f, today))
    },
  }
}
