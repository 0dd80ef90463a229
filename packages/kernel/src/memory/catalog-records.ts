import type { Static } from 'typebox'
import { Type } from '../schema/typebox.js'
import { ConfidenceSchema, FactTypeSchema, type Fact } from '../schema/fact.js'
import { lazySchema } from '../schema/lazy.js'
import { factNumber, normalizeText, statementKeys, subjectTokens, titleTokens } from './facts.js'

/*
 * The write catalog's records, kept in the `meta` collection of every storage (see catalog.ts):
 * - `catalog/head`: the facts revision the catalog describes, the highest id taken, the active
 *   count, the expiring facts, and the stamp (write sequence) of every other record, the shards' and
 *   chunks' as small offsets from the sequence the catalog was built at (the head is rewritten by
 *   every write);
 * - `catalog/terms/<shard>`: term → ids of the active facts holding it (title, subject token,
 *   statement key, each within one type and scope), the term's shard being a hash of it; a term is
 *   stored as a 64-bit hash of it (`termHash`), which keeps a shard a third of the size of its terms'
 *   text (a write rewrites the shards of all its terms), and a fact found under a term is checked
 *   against the term before it is a candidate (`draftCandidates`);
 * - `catalog/members/<chunk>`: every active fact by id (256 ids a chunk) with the term shards it
 *   is listed in, so a fact changed by other means is taken out exactly;
 * - `catalog/index`: the first facts in index order, enough for INDEX.md and a margin.
 * The head also names the INDEX.md saved with it (its day and checksum), so `readIndex` serves a
 * stored INDEX.md only when the head describes that very text.
 * Every record is written with relaxed durability. A record whose stamp is not the one the head
 * names is stale (a power cut took its last write, or the head's, or a writer died between them):
 * the catalog is then rebuilt from one full read.
 */

/** Bumped when the records change shape: a catalog of another format is rebuilt. */
export const CATALOG_FORMAT = 3
/**
 * The most term shards: a write reads and rewrites the few its fact's terms fall in. A catalog is
 * built with a power of two sized to its facts (`shardsFor`), and split into more once it holds
 * `SHARD_FACTS` active facts a shard (`shardOfHash`: no fact is read). At 100k facts, 8192 shards
 * of ~3 KB: a new process's first write parses a dozen of them (with 1024, a dozen of 24 KB each,
 * some 20 ms of its CPU), and the head's stamps come to ~20 KB fresh, ~60 KB after as many writes
 * as facts.
 */
export const TERM_SHARDS = 8192
/**
 * Active facts a shard holds at most before the catalog is split into more shards. A write
 * rewrites every shard its fact's terms fall in (about ten), so a shard's size is most of what a
 * write parses, serializes and stores: small shards keep a write's garbage, its WAL pages and its
 * relaxed file writes small, at the price of a larger head (a stamp per shard, ~21 bytes each).
 */
export const SHARD_FACTS = 32

/** The shard count for a catalog of `active` facts: a power of two from 16 to `TERM_SHARDS`, about 8 facts a shard. */
export function shardsFor(active: number): number {
  let n = 16
  while (n < TERM_SHARDS && n * 8 < active) n *= 2
  return n
}
/** Ids per members chunk (by fact number): a write rewrites one or two. */
export const MEMBER_CHUNK = 256

export const HEAD_KEY = 'catalog/head'
export const INDEX_LIST_KEY = 'catalog/index'
export const termsKey = (shard: number) => `catalog/terms/${shard.toString(16).padStart(3, '0')}`
export const membersKey = (chunk: number) => `catalog/members/${chunk}`
export const chunkOf = (id: string) => Math.floor(factNumber(id) / MEMBER_CHUNK)

export const CatalogHeadSchema = lazySchema(() =>
  Type.Object({
    format: Type.Literal(CATALOG_FORMAT),
    /** The facts revision the catalog describes. */
    revision: Type.String(),
    /** How many term shards (`shardsFor`): a term's shard is `shardOf(term, shards)`. */
    shards: Type.Integer({ minimum: 1 }),
    /** Bumped by every commit; the stamp of the records it wrote. */
    seq: Type.Integer({ minimum: 1 }),
    /** The sequence the catalog was built at: `terms` and `members` hold stamps less this (see `stampOf`). */
    base: Type.Integer({ minimum: 0 }),
    /** The highest fact number taken, by a fact or by a record that cannot be read. */
    maxNumber: Type.Integer({ minimum: 0 }),
    /** Facts with status active (expired ones included). */
    active: Type.Integer({ minimum: 0 }),
    /** Active facts with an `expires`: id → date. */
    expiring: Type.Record(Type.String(), Type.String()),
    /** By term shard: the stamp of its last write less `base` (0: never written, empty). */
    terms: Type.Array(Type.Integer({ minimum: 0 })),
    /** Members chunk → the stamp of its last write less `base`. */
    members: Type.Record(Type.String(), Type.Integer({ minimum: 1 })),
    /** The stamp of the index list. */
    index: Type.Integer(),
    /** The day INDEX.md was last rendered (its expired facts are those before it). */
    indexDay: Type.String(),
    /**
     * The checksum of the INDEX.md text saved before this head (`indexChecksum`; '' when none was):
     * both are relaxed, so an index a power cut rolled back is told apart and rebuilt.
     */
    indexSum: Type.String(),
  }),
)
export type CatalogHead = Static<ReturnType<typeof CatalogHeadSchema>>

export const TermShardSchema = lazySchema(() =>
  Type.Object({
    seq: Type.Integer(),
    terms: Type.Record(Type.String(), Type.Array(Type.String())),
  }),
)
export type TermShard = Static<ReturnType<typeof TermShardSchema>>

export const MembersChunkSchema = lazySchema(() =>
  Type.Object({
    seq: Type.Integer(),
    members: Type.Record(Type.String(), Type.Array(Type.Integer())),
  }),
)
export type MembersChunk = Static<ReturnType<typeof MembersChunkSchema>>

/** What INDEX.md shows of a fact. */
export const IndexEntrySchema = lazySchema(() =>
  Type.Object({
    id: Type.String(),
    type: FactTypeSchema,
    confidence: ConfidenceSchema,
    created: Type.String(),
    title: Type.String(),
    scope: Type.String(),
    expires: Type.Optional(Type.String()),
  }),
)
export type IndexEntry = Static<ReturnType<typeof IndexEntrySchema>>

export const IndexListSchema = lazySchema(() =>
  Type.Object({
    seq: Type.Integer(),
    /** Every active fact is in `entries` (else only a prefix of the order is). */
    complete: Type.Boolean(),
    entries: Type.Array(IndexEntrySchema()),
  }),
)
export type IndexList = Static<ReturnType<typeof IndexListSchema>>

/*
 * The records are checked by hand, not by compiled validators: compiling one costs a new process
 * about 25 ms, more than the whole write it guards. A record failing its check reads as stale.
 */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isInt = (v: unknown): v is number => Number.isInteger(v)
const valuesAre = (v: unknown, check: (x: unknown) => boolean) => isObject(v) && Object.values(v).every(check)
const isStrings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string')

/** A check of one record's shape: what the catalog reads from the `meta` collection. */
export interface RecordCheck<T> {
  check(value: unknown): value is T
}

export const headRecord: RecordCheck<CatalogHead> = {
  check: (v): v is CatalogHead =>
    isObject(v) &&
    v.format === CATALOG_FORMAT &&
    typeof v.revision === 'string' &&
    isInt(v.seq) &&
    isInt(v.base) &&
    isInt(v.shards) &&
    (v.shards as number) >= 1 &&
    isInt(v.maxNumber) &&
    isInt(v.active) &&
    valuesAre(v.expiring, (x) => typeof x === 'string') &&
    Array.isArray(v.terms) &&
    v.terms.length === v.shards &&
    v.terms.every(isInt) &&
    valuesAre(v.members, isInt) &&
    isInt(v.index) &&
    typeof v.indexDay === 'string' &&
    typeof v.indexSum === 'string',
}
export const termShardRecord: RecordCheck<TermShard> = {
  check: (v): v is TermShard => isObject(v) && isInt(v.seq) && valuesAre(v.terms, isStrings),
}
export const membersRecord: RecordCheck<MembersChunk> = {
  check: (v): v is MembersChunk =>
    isObject(v) && isInt(v.seq) && valuesAre(v.members, (x) => Array.isArray(x) && x.every(isInt)),
}
const isEntry = (e: unknown) =>
  isObject(e) &&
  ['id', 'type', 'confidence', 'created', 'title', 'scope'].every((k) => typeof e[k] === 'string') &&
  (e.expires === undefined || typeof e.expires === 'string')
export const indexListRecord: RecordCheck<IndexList> = {
  check: (v): v is IndexList =>
    isObject(v) &&
    isInt(v.seq) &&
    typeof v.complete === 'boolean' &&
    Array.isArray(v.entries) &&
    v.entries.every(isEntry),
}

/** The terms a fact is found by, each within its type and scope: its normalized title (`t`), subject tokens (`s`) and statement keys (`k`). */
export function termsOf(fact: Pick<Fact, 'type' | 'scope' | 'title'>): string[] {
  const tokens = titleTokens(fact.title)
  const local = [
    `t${normalizeText(fact.title)}`,
    ...[...subjectTokens(tokens)].map((t) => `s${t}`),
    ...statementKeys(tokens).map((k) => `k${k}`),
  ]
  return [...new Set(local)].map((term) => termKey(fact, term))
}

export const termKey = (fact: Pick<Fact, 'type' | 'scope'>, term: string) =>
  `${fact.type}\u0000${fact.scope}\u0000${term}`

/** A term as a shard stores it: two 32-bit hashes of it (FNV-1a and a multiplicative one), in base 36. */
export function termHash(term: string): string {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let i = 0; i < term.length; i++) {
    const c = term.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return `${(a >>> 0).toString(36).padStart(7, '0')}${(b >>> 0).toString(36)}`
}

/** The stamp a head names for a shard or chunk from its offset (`terms`, `members`); undefined: never written. */
export const stampOf = (head: Pick<CatalogHead, 'base'>, offset: number | undefined) =>
  offset ? head.base + offset : undefined

/**
 * The shard of a term from its stored hash, the same as `shardOf` gives the term: the hash begins
 * with the term's FNV-1a hash, so a catalog splits into more shards without its terms' text.
 */
export const shardOfHash = (hash: string, shards: number): number => Number.parseInt(hash.slice(0, 7), 36) % shards

/** FNV-1a of the term, mod the catalog's shard count. */
export function shardOf(term: string, shards: number): number {
  let h = 0x811c9dc5
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193)
  return (h >>> 0) % shards
}

export const indexEntryOf = (f: Fact): IndexEntry => {
  const entry: IndexEntry = {
    id: f.id,
    type: f.type,
    confidence: f.confidence,
    created: f.created,
    title: f.title,
    scope: f.scope,
  }
  if (f.expires !== undefined) entry.expires = f.expires
  return entry
}
