import { FACT_ID_PATTERN, type Fact } from '../schema/fact.js'
import {
  chunkOf,
  HEAD_KEY,
  INDEX_LIST_KEY,
  indexEntryOf,
  shardOf,
  stampOf,
  termHash,
  termsOf,
  type CatalogHead,
  type IndexEntry,
  type IndexList,
  type MembersChunk,
  type TermShard,
} from './catalog-records.js'
import { compareForIndex } from './facts.js'

const FACT_ID = new RegExp(FACT_ID_PATTERN)
const TERMS = 'catalog/terms/'
const MEMBERS = 'catalog/members/'

/**
 * The facts changed since a catalog record was read, by id: the fact as stored now, or undefined
 * when it is gone or cannot be read (either way, in no record).
 */
export type ChangedFacts = ReadonlyMap<string, Fact | undefined>

/** The stamp `head` names for a catalog record (undefined: never written, empty). */
export function stampFor(head: CatalogHead, key: string): number | undefined {
  if (key === INDEX_LIST_KEY) return head.index
  if (key.startsWith(TERMS)) return stampOf(head, head.terms[Number.parseInt(key.slice(TERMS.length), 16)])
  if (key.startsWith(MEMBERS)) return stampOf(head, head.members[Number(key.slice(MEMBERS.length))])
  return key === HEAD_KEY ? head.seq : undefined
}

/**
 * Each of `records` (read as of head `before`) that `head`, a later head of the same catalog, stamps
 * anew, brought up to date from `changed` (see `patchRecord`) and stamped as `head` names it; `patched`
 * is told of each.
 */
export function bringForward(
  records: ReadonlyMap<string, { seq: number }>,
  before: CatalogHead,
  head: CatalogHead,
  changed: ChangedFacts,
  patched: (key: string) => void,
): void {
  for (const [key, record] of records) {
    const stamp = stampFor(head, key)
    if (stamp === stampFor(before, key)) continue
    patchRecord(key, record, head.shards, changed)
    record.seq = stamp ?? 0
    patched(key)
  }
}

/**
 * A record read as of one head, brought to what a later head of the same catalog (same base and
 * shards) names, from the facts changed in between: each changed id taken out, then each changed
 * fact that is active put back where it belongs. A record is a function of the active facts, so
 * this is what the writers in between wrote (the ids under a term may be in another order).
 */
export function patchRecord(key: string, record: { seq: number }, shards: number, changed: ChangedFacts): void {
  if (key === INDEX_LIST_KEY) patchList(record as IndexList, changed)
  else if (key.startsWith(TERMS))
    patchShard(record as TermShard, Number.parseInt(key.slice(TERMS.length), 16), shards, changed)
  else if (key.startsWith(MEMBERS))
    patchMembers(record as MembersChunk, Number(key.slice(MEMBERS.length)), shards, changed)
}

function patchShard(shard: TermShard, b: number, shards: number, changed: ChangedFacts): void {
  for (const [term, ids] of Object.entries(shard.terms)) {
    if (!ids.some((id) => changed.has(id))) continue
    const kept = ids.filter((id) => !changed.has(id))
    if (kept.length) shard.terms[term] = kept
    else delete shard.terms[term]
  }
  for (const fact of changed.values()) {
    if (fact?.status !== 'active') continue
    for (const term of termsOf(fact)) {
      if (shardOf(term, shards) !== b) continue
      const ids = (shard.terms[termHash(term)] ??= [])
      if (!ids.includes(fact.id)) ids.push(fact.id)
    }
  }
}

function patchMembers(chunk: MembersChunk, c: number, shards: number, changed: ChangedFacts): void {
  for (const [id, fact] of changed) {
    if (!FACT_ID.test(id) || chunkOf(id) !== c) continue
    delete chunk.members[id]
    if (fact?.status === 'active') chunk.members[id] = shardsOfFact(fact, shards)
  }
}

function patchList(list: IndexList, changed: ChangedFacts): void {
  list.entries = list.entries.filter((e) => !changed.has(e.id))
  for (const fact of changed.values()) if (fact?.status === 'active') listInsert(list, indexEntryOf(fact))
}

/** The term shards a fact is listed in, as a members chunk names them. */
export function shardsOfFact(fact: Fact, shards: number): number[] {
  return [...new Set(termsOf(fact).map((term) => shardOf(term, shards)))]
}

/**
 * Put an entry in the index list at its place in index order; false when the list is a prefix of
 * the order (`complete` false) and the entry falls past its end, where it is not kept.
 */
export function listInsert(list: IndexList, entry: IndexEntry): boolean {
  const last = list.entries[list.entries.length - 1]
  if (!list.complete && (!last || compareForIndex(entry, last) > 0)) return false
  let at = list.entries.findIndex((e) => compareForIndex(entry, e) < 0)
  if (at < 0) at = list.entries.length
  list.entries.splice(at, 0, entry)
  return true
}
