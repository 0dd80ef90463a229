import { FoundryError, type Retriever } from '@foundry/kernel'
import {
  boundedDistance,
  type RetrievalChanges,
  type RetrievalDoc,
  type RetrievalHit,
  type RetrievalQuery,
} from '@foundry/kernel/adapter'
import pg from 'pg'
import { translate } from './errors.js'
import { migrate } from './migrate.js'
import { analyzable, anyOf, likePrefix, typoPatterns } from './retriever-query.js'
import { RETRIEVER_COMPONENT, RETRIEVER_STEPS } from './retriever-schema.js'
import { redactUrl } from './url.js'

export interface PostgresRetrieverOptions {
  /** The database, as a `postgres://` URL. Give `url` or `pool`. */
  url?: string
  /** A pool to use instead of opening one from `url` (the caller closes it). */
  pool?: pg.Pool
  /**
   * The PostgreSQL text search configuration documents and queries are analysed with. Default
   * `english` (Snowball stemming, English stop words); `simple` only lowercases (no stemming), any
   * other configuration of the server (`german`, `french`…) stems its language. Changing it rebuilds the index.
   */
  config?: string
  /** BM25 weights of the title and tag words: a term's frequency counts this many times there (body 1). Default title 2, tags 1.5. */
  weights?: { title?: number; tags?: number }
  /** BM25 parameters. Default k1 1.2, b 0.75. */
  bm25?: { k1?: number; b?: number }
  /** A query word the index lacks matches the indexed words it begins, when at least this long. Default 4; 0 turns it off. */
  prefixMinLength?: number
  /**
   * A query word of 5+ characters the index lacks, even as a prefix, matches the indexed words within
   * this fraction of its length in edit distance (rounded, at most 3). Default 0.2; 0 turns it off.
   */
  fuzzy?: number
  /**
   * Score first the documents holding the query's rarer words, and stop there when no document holding
   * only its common words could enter the hits (MaxScore). Default true; false scores every document
   * that matches: the same hits and scores, slower on queries with common words. For tests and benchmarks.
   */
  pruning?: boolean
  /** Connections of the pool it opens from `url`. Default 2. */
  connections?: number
}

/**
 * How the indexed text was analysed. An index analysed otherwise (another `config`, or before a change
 * to `analyzable`) reflects no revision, so the kernel rebuilds it rather than search lexemes its
 * queries no longer produce.
 */
const ANALYZER_VERSION = 1
/** Typo variants searched per unknown query word, nearest first. */
const MAX_VARIANTS = 8
/** Indexed words searched per unknown query word taken as a prefix, the most frequent first. */
const MAX_EXPANSIONS = 32
/**
 * What a word found by prefix or by a typo counts, as a fraction of its BM25 score (MiniSearch's
 * defaults: prefix 0.375, fuzzy 0.45, the latter scaled by length / (length + distance)).
 */
const PREFIX_WEIGHT = 0.375
const FUZZY_WEIGHT = 0.45
/** Documents inserted per statement. */
const BATCH = 500
/** MaxScore's first pass matches the rarest lexemes found together in at most this fraction of the documents. */
const RARE_SHARE = 0.1

/** A lexeme of a query: its document frequency, and what its score counts (1, less for prefix and typo matches). */
interface Term {
  docs: number
  weight: number
}

/**
 * BM25 of the documents that match `$7` (an OR of lexemes), on the query's lexemes `$1` weighted by `$2`:
 * each lexeme's term frequency read from the document's tsvector, weighted by field (A title `$5` + 1,
 * B tags `$6` + 1, D body 1), its IDF from `foundry_retriever_terms`. The best `$10`, ties by id.
 */
const SEARCH = `WITH q AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS q(lexeme, weight)),
       totals AS (SELECT docs::float8 AS n, greatest(length::float8 / greatest(docs, 1), 1) AS avg FROM foundry_retriever_index LIMIT 1),
       idf AS (SELECT q.lexeme, q.weight * ln(1 + (totals.n - t.docs + 0.5) / (t.docs + 0.5)) AS idf FROM q JOIN foundry_retriever_terms t ON t.lexeme = q.lexeme, totals)
  -- Rounded: the sum's last bits follow the plan's order, and one query must score one way.
  SELECT d.id, round(sum(idf.idf * f.tf * ($3::float8 + 1) / (f.tf + $3::float8 * (1 - $4::float8 + $4::float8 * d.length / totals.avg)))::numeric, 9)::float8 AS score
  FROM foundry_retriever_docs d
  CROSS JOIN totals
  -- Only the query's lexemes of each tsvector: the rest deleted (unnesting it whole costs 3 times as much).
  CROSS JOIN LATERAL unnest(ts_delete(d.tsv, tsvector_to_array(ts_delete(d.tsv, $1::text[])))) AS u
  JOIN idf ON idf.lexeme = u.lexeme
  CROSS JOIN LATERAL (
    SELECT cardinality(u.positions) + $5::float8 * cardinality(array_positions(u.weights, 'A')) + $6::float8 * cardinality(array_positions(u.weights, 'B')) AS tf
  ) AS f
  WHERE d.tsv @@ $7::tsquery AND ($8::text IS NULL OR d.type = $8) AND ($9::text IS NULL OR d.scope = $9)
  GROUP BY d.id
  ORDER BY score DESC, d.id
  LIMIT $10`

/** The most a lexeme adds to a document's score: BM25's term frequency factor tends to k1 + 1. */
const upperBound = (term: Term, n: number, k1: number) =>
  term.weight * Math.log(1 + (n - term.docs + 0.5) / (term.docs + 0.5)) * (k1 + 1)

/** The query's rarest lexemes, together in at most `RARE_SHARE` of the `n` documents, and the rest. */
function splitByRarity(terms: Map<string, Term>, n: number): { rare: string[]; common: string[] } {
  const sorted = [...terms].sort((x, y) => x[1].docs - y[1].docs || (x[0] < y[0] ? -1 : 1))
  let budget = n * RARE_SHARE
  let i = 0
  while (i < sorted.length && sorted[i]![1].docs <= budget) budget -= sorted[i++]![1].docs
  return { rare: sorted.slice(0, i).map(([l]) => l), common: sorted.slice(i).map(([l]) => l) }
}

/**
 * Keyword retrieval on PostgreSQL full-text search, ranked by BM25 in SQL. Each fact is one row of
 * `foundry_retriever_docs`: a tsvector (title weighted A, tags B, body D; text written without
 * spaces split into words first, as the other retrievers do) under a GIN index. A query is the OR of
 * its lexemes (`to_tsvector` of its text, so the user's syntax is inert) and each hit's score is BM25
 * over the query's lexemes: their frequencies read from the tsvector (weighted by field), their
 * document frequencies from `foundry_retriever_terms`, kept in step by `apply()`. A query word the
 * index lacks matches as a prefix, then within a small edit distance, of the indexed words. The index
 * and the revision it reflects live in the database, so every process on every machine shares one,
 * and a new process answers at once.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
export function postgresRetriever(options: PostgresRetrieverOptions): Retriever {
  if (!options.pool && !options.url)
    throw new FoundryError('INVALID_INPUT', 'postgresRetriever: give url (postgres://…) or pool')
  const url = options.url
  const where = url ? redactUrl(url) : 'the database'
  // allowExitOnIdle: a CLI process exits when its work is done, without waiting for idle connections to time out.
  const pool =
    options.pool ??
    new pg.Pool({
      connectionString: url,
      max: options.connections ?? 2,
      allowExitOnIdle: true,
      idleTimeoutMillis: 10_000,
    })
  if (!options.pool) {
    // An idle pooled connection that breaks: the next query reports it.
    pool.on('error', () => undefined)
    // The search statement's cost estimate (a join over every matched document's lexemes) passes the
    // JIT threshold, and compiling it takes longer than running it: off for the retriever's connections.
    pool.on('connect', (client) => void client.query('SET jit = off').catch(() => undefined))
  }
  const config = options.config ?? 'english'
  const analyzer = `${config}/${ANALYZER_VERSION}`
  const titleWeight = options.weights?.title ?? 2
  const tagsWeight = options.weights?.tags ?? 1.5
  const k1 = options.bm25?.k1 ?? 1.2
  const b = options.bm25?.b ?? 0.75
  const prefixMin = options.prefixMinLength ?? 4
  const fuzzy = options.fuzzy ?? 0.2
  const pruning = options.pruning ?? true
  let ready: Promise<void> | undefined
  let closed = false

  /** A database failure as the storage reports it: one line naming the database, its password never included. */
  const failure = (error: unknown): unknown => (url ? translate(error, url) : error)

  /** Run `fn` on one pooled connection, the schema migrated first (once per retriever). */
  async function withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (closed) throw new FoundryError('UNAVAILABLE', `postgresRetriever on ${where} is closed`)
    let client: pg.PoolClient
    try {
      client = await pool.connect()
    } catch (error) {
      throw failure(error)
    }
    let broken: Error | undefined
    try {
      await (ready ??= prepare(client).catch((error) => {
        ready = undefined
        throw error
      }))
      return await fn(client)
    } catch (error) {
      // A connection that failed without a server's answer (no SQLSTATE) is not reused.
      if (!/^[0-9A-Z]{5}$/.test(String((error as { code?: unknown } | null)?.code))) broken = error as Error
      throw failure(error)
    } finally {
      client.release(broken)
    }
  }

  async function prepare(client: pg.PoolClient): Promise<void> {
    await migrate(client, RETRIEVER_COMPONENT, RETRIEVER_STEPS, { where })
    const found = await client.query('SELECT 1 FROM pg_ts_config WHERE oid::regconfig::text = $1 OR cfgname = $1', [
      config,
    ])
    if (!found.rowCount) {
      const known = await client.query<{ name: string }>('SELECT cfgname AS name FROM pg_ts_config ORDER BY cfgname')
      throw new FoundryError(
        'INVALID_INPUT',
        `retrieval.config "${config}" is not a text search configuration of ${where}: use one of ${known.rows.map((r) => r.name).join(', ')}`,
      )
    }
  }

  async function transaction<T>(client: pg.PoolClient, fn: () => Promise<T>): Promise<T> {
    await client.query('BEGIN')
    try {
      const out = await fn()
      await client.query('COMMIT')
      return out
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    }
  }

  /** Remove documents by id, lowering their lexemes' document frequencies and the totals. */
  async function removeDocs(client: pg.PoolClient, ids: string[]): Promise<void> {
    const emptied = await client.query<{ lexeme: string }>({
      name: 'foundry_retriever_remove',
      text: `WITH gone AS (DELETE FROM foundry_retriever_docs WHERE id = ANY($1::text[]) RETURNING tsv, length),
            counts AS (SELECT lexeme, count(*)::int AS n FROM gone, unnest(tsvector_to_array(gone.tsv)) AS lexeme GROUP BY lexeme),
            lowered AS (UPDATE foundry_retriever_terms t SET docs = t.docs - counts.n FROM counts WHERE t.lexeme = counts.lexeme RETURNING t.lexeme, t.docs),
            totals AS (UPDATE foundry_retriever_index SET docs = docs - (SELECT count(*) FROM gone), length = length - (SELECT coalesce(sum(length), 0) FROM gone))
       SELECT lexeme FROM lowered WHERE docs <= 0`,
      values: [ids],
    })
    // A lexeme no document holds any more leaves the vocabulary prefix and typo matching search.
    if (emptied.rowCount)
      await client.query('DELETE FROM foundry_retriever_terms WHERE lexeme = ANY($1::text[]) AND docs <= 0', [
        emptied.rows.map((r) => r.lexeme),
      ])
  }

  /** Insert documents (none of whose ids is indexed), raising their lexemes' document frequencies and the totals. */
  async function insertDocs(client: pg.PoolClient, docs: RetrievalDoc[]): Promise<void> {
    await client.query({
      name: 'foundry_retriever_insert',
      text: `WITH input AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS i(id, type, scope, title, tags, body)),
            made AS (
              SELECT id, type, scope,
                     setweight(to_tsvector($7::regconfig, title), 'A') || setweight(to_tsvector($7::regconfig, tags), 'B') || to_tsvector($7::regconfig, body) AS tsv
              FROM input),
            added AS (
              INSERT INTO foundry_retriever_docs (id, type, scope, tsv, length)
              SELECT id, type, scope, tsv, (SELECT coalesce(sum(cardinality(positions)), 0) FROM unnest(tsv)) FROM made
              RETURNING tsv, length),
            counts AS (SELECT lexeme, count(*)::int AS n FROM added, unnest(tsvector_to_array(added.tsv)) AS lexeme GROUP BY lexeme),
            raised AS (
              INSERT INTO foundry_retriever_terms (lexeme, docs) SELECT lexeme, n FROM counts
              ON CONFLICT (lexeme) DO UPDATE SET docs = foundry_retriever_terms.docs + excluded.docs)
       UPDATE foundry_retriever_index SET docs = docs + (SELECT count(*) FROM added), length = length + (SELECT coalesce(sum(length), 0) FROM added)`,
      values: [
        docs.map((d) => d.id),
        docs.map((d) => d.type),
        docs.map((d) => d.scope),
        docs.map((d) => analyzable(d.title)),
        docs.map((d) => analyzable(d.tags.join(' '))),
        docs.map((d) => analyzable(d.body)),
        config,
      ],
    })
  }

  /**
   * The lexemes a query searches, each with what its score counts: the query's own lexemes the index
   * holds (1); for each it lacks, the indexed words it begins (`PREFIX_WEIGHT`), or failing those the
   * nearest indexed words within the typo distance (`FUZZY_WEIGHT`, less with distance).
   */
  async function queryLexemes(client: pg.PoolClient, text: string): Promise<{ terms: Map<string, Term>; n: number }> {
    const found = await client.query<{ lexeme: string; docs: number | null; n: string }>({
      name: 'foundry_retriever_lexemes',
      text: `SELECT q.lexeme, t.docs, (SELECT docs FROM foundry_retriever_index LIMIT 1) AS n
             FROM unnest(tsvector_to_array(to_tsvector($1::regconfig, $2))) AS q(lexeme) LEFT JOIN foundry_retriever_terms t ON t.lexeme = q.lexeme`,
      values: [config, analyzable(text)],
    })
    const terms = new Map<string, Term>()
    const add = (lexeme: string, docs: number, weight: number) => {
      if (weight > (terms.get(lexeme)?.weight ?? 0)) terms.set(lexeme, { docs, weight })
    }
    for (const { lexeme, docs } of found.rows) {
      if (docs !== null) {
        add(lexeme, docs, 1)
        continue
      }
      if (prefixMin > 0 && lexeme.length >= prefixMin) {
        const longer = await client.query<{ lexeme: string; docs: number }>({
          name: 'foundry_retriever_prefix',
          text: `SELECT lexeme, docs FROM foundry_retriever_terms WHERE lexeme LIKE $1 ESCAPE '\\' ORDER BY docs DESC, lexeme LIMIT ${MAX_EXPANSIONS}`,
          values: [likePrefix(lexeme)],
        })
        for (const row of longer.rows) add(row.lexeme, row.docs, PREFIX_WEIGHT)
        if (longer.rowCount) continue
      }
      for (const [variant, docs, distance] of await typoVariants(client, lexeme))
        add(variant, docs, (FUZZY_WEIGHT * lexeme.length) / (lexeme.length + distance))
    }
    return { terms, n: Number(found.rows[0]?.n ?? 0) }
  }

  /** Indexed words within the typo distance of an unknown lexeme, nearest first. */
  async function typoVariants(client: pg.PoolClient, lexeme: string): Promise<Array<[string, number, number]>> {
    const max = Math.min(3, Math.round(lexeme.length * fuzzy))
    if (fuzzy <= 0 || lexeme.length < 5 || max < 1) return []
    const candidates = await client.query<{ lexeme: string; docs: number }>({
      name: 'foundry_retriever_near',
      text: 'SELECT lexeme, docs FROM foundry_retriever_terms WHERE char_length(lexeme) BETWEEN $1 AND $2 AND lexeme LIKE ANY ($3::text[])',
      values: [lexeme.length - max, lexeme.length + max, typoPatterns(lexeme, max)],
    })
    const found: Array<[string, number, number]> = []
    for (const { lexeme: candidate, docs } of candidates.rows) {
      const d = boundedDistance(lexeme, candidate, max)
      if (d <= max) found.push([candidate, docs, d])
    }
    return found.sort((x, y) => x[2] - y[2] || (x[0] < y[0] ? -1 : 1)).slice(0, MAX_VARIANTS)
  }

  return {
    name: 'postgres',
    // BM25 with Lucene's IDF: one query word found once in the body of a document of average length scores its IDF.
    scoreScale: 1,
    capabilities: { stemming: config !== 'simple', prefix: prefixMin > 0, fuzzy: fuzzy > 0, segmentation: true },

    revision: () =>
      withClient(async (client) => {
        const row = (
          await client.query<{ revision: string | null; analyzer: string | null }>(
            'SELECT revision, analyzer FROM foundry_retriever_index',
          )
        ).rows[0]
        return row?.analyzer === analyzer ? (row.revision ?? undefined) : undefined
      }),

    apply: (changes: RetrievalChanges) =>
      withClient((client) =>
        transaction(client, async () => {
          // The row lock serialises appliers across processes; searches read on, from their snapshot.
          const before = (await client.query<{ docs: string }>('SELECT docs FROM foundry_retriever_index FOR UPDATE'))
            .rows[0]
          let empty = Number(before?.docs ?? 0) === 0
          if (changes.reset) {
            // DELETE, not TRUNCATE: searches in other processes read on from their snapshot meanwhile.
            await client.query('DELETE FROM foundry_retriever_docs')
            await client.query('DELETE FROM foundry_retriever_terms')
            await client.query('UPDATE foundry_retriever_index SET docs = 0, length = 0')
            empty = true
          }
          const docs = [...new Map(changes.upsert.map((d) => [d.id, d])).values()]
          const stale = [...new Set([...changes.remove, ...docs.map((d) => d.id)])]
          if (!empty && stale.length) await removeDocs(client, stale)
          for (let i = 0; i < docs.length; i += BATCH) await insertDocs(client, docs.slice(i, i + BATCH))
          // Statistics for the planner after a rebuild (an index scan or a sequential one): autovacuum would take a while.
          if (changes.reset) await client.query('ANALYZE foundry_retriever_docs, foundry_retriever_terms')
          // Empty, the index is analysed this way from now on; otherwise it keeps what it was analysed with.
          await client.query(
            'UPDATE foundry_retriever_index SET revision = $1, analyzer = CASE WHEN $2 THEN $3 ELSE analyzer END',
            [changes.revision, empty, analyzer],
          )
        }),
      ),

    search: async (query: RetrievalQuery): Promise<RetrievalHit[]> => {
      if (query.limit < 1 || !query.text.trim()) return []
      return withClient(async (client) => {
        const { terms, n } = await queryLexemes(client, query.text)
        if (!terms.size) return []
        const lexemes = [...terms.keys()]
        const scored = (matching: string[]) =>
          client.query<{ id: string; score: number }>({
            name: 'foundry_retriever_search',
            text: SEARCH,
            values: [
              lexemes,
              lexemes.map((l) => terms.get(l)!.weight),
              k1,
              b,
              titleWeight - 1,
              tagsWeight - 1,
              anyOf(matching),
              query.type ?? null,
              query.scope ?? null,
              query.limit,
            ],
          })
        // MaxScore: the documents holding one of the rarer lexemes first, scored on every lexeme. When
        // the last of the best `limit` scores more than the commonest lexemes can add up to at most
        // (BM25 saturates at idf × (k1 + 1)), no document holding only those can enter: the answer is
        // exact, and the scan skipped most of the documents a common word matches.
        const { rare, common } = splitByRarity(terms, n)
        if (pruning && rare.length && common.length) {
          const first = (await scored(rare)).rows
          const ceiling = common.reduce((sum, l) => sum + upperBound(terms.get(l)!, n, k1), 0) * (1 + 1e-9)
          if (first.length === query.limit && first[first.length - 1]!.score > ceiling)
            return first.map((r) => ({ id: r.id, score: r.score }))
        }
        return (await scored(lexemes)).rows.map((r) => ({ id: r.id, score: r.score }))
      })
    },

    async close() {
      if (closed) return
      closed = true
      if (!options.pool) await pool.end().catch(() => undefined)
    },
  }
}
