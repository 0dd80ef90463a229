import { FoundryError, type Retriever } from '@foundry/kernel'
import {
  processTerm,
  segmentWords,
  type RetrievalChanges,
  type RetrievalDoc,
  type RetrievalHit,
  type RetrievalQuery,
} from '@foundry/kernel/adapter'
import { boundedDistance, matchExpression, queryTerms, quote, termPhrases, vocabulary } from './fts-query.js'
import { rankTopK, type Word } from './fts-rank.js'
import { openTarget, type OpenOptions, type SqliteTarget } from './open.js'

export type FtsRetrieverOptions = SqliteTarget &
  OpenOptions & {
    /**
     * BM25 column weights (FTS5's `bm25()`, k1 1.2, b 0.75): a term's frequency counts this many
     * times in each column. Default title 2, tags 1.5, body 1.
     */
    weights?: { title?: number; tags?: number; body?: number }
    /** Match query terms as prefixes of indexed terms (terms of at least this length). Default 4; 0 turns it off. */
    prefixMinLength?: number
    /**
     * Typo tolerance for a term of 5+ characters that matches nothing: indexed terms within this
     * fraction of its length in edit distance (rounded, at most 3) are searched instead. Default 0.2; 0 turns it off.
     */
    fuzzy?: number
    /**
     * From this many indexed rows on, a query of several words is ranked with MaxScore pruning
     * (fts-rank.ts): bm25() scores only the rows of its rarer words when the common ones cannot lift
     * another row into the top. Same hits and scores as one bm25() query. Default 50000 (at 10k rows it
     * cost 1.2× the one query, at 100k 0.8×: bench/suites/sqlite.ts); `Infinity`
     * turns it off.
     */
    pruneMinRows?: number
  }

const REVISION_KEY = 'revision'
/**
 * How the indexed text was cut into words before unicode61 saw it. An index cut otherwise (one built
 * before text without spaces was split into words stores none) reflects no revision, so the kernel
 * rebuilds it instead of searching terms its queries no longer produce.
 */
const ANALYZER_KEY = 'analyzer'
const ANALYZER = 'segmentWords/1'
/**
 * Queries of more words go to one bm25() query at once: their common words' bound rarely lets
 * pruning stop (measured on 20–60-word prompts, it cost more than it saved).
 */
const PRUNE_MAX_WORDS = 5
/** Typo variants searched per unknown term, nearest first. */
const MAX_VARIANTS = 8
/**
 * `Retriever.scoreScale`, as `calibrateScoreScale` (`@foundry/kernel/testing`) measures it with the
 * default options: 1.997. A query word of `prefixMinLength` or more characters is matched twice, as
 * written and as a prefix (`"word" OR "word"*`), so a body word scores its IDF twice (body weight 1,
 * k1 1.2, b 0.75: a word found once in a document of average length counts once); FTS5's IDF,
 * ln((N − n + 0.5) / (n + 0.5)), is 0.998 of BM25's ln(1 + …) among the calibration's 200 facts. With
 * `prefixMinLength: 0` it measures 0.998. Another body weight shifts it; measure it again with
 *   cd packages/adapter-sqlite && npx tsx -e "import('@foundry/kernel/testing').then(async (t) =>
 *     console.log(await t.calibrateScoreScale((await import('./src/index.ts')).ftsRetriever({ path: ':memory:' }))))"
 * test/fts-retriever.test.ts checks both figures; the conformance suite holds them within 30%.
 */
const SCORE_SCALE = 2
const SCORE_SCALE_EXACT_ONLY = 1

/**
 * Keyword retrieval on SQLite FTS5, ranked by BM25 with column weights, Porter stemming, prefix
 * matching and a typo fallback. Text written without spaces (Chinese, Japanese, Thai…) is split into
 * words in JS (`segmentWords`) before it is indexed or queried, so unicode61 sees spaces between
 * them. It persists itself: the index and the revision it reflects live in the file, so a new
 * process answers at once. Give it its own `path` (beside fsStorage, e.g. `.foundry/cache/fts.db`),
 * the storage's path, or the same `database` as `sqliteStorage`.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
export function ftsRetriever(options: FtsRetrieverOptions): Retriever {
  const opened = openTarget(options, options)
  const { connection } = opened
  const { db, file } = connection
  const w = { title: options.weights?.title ?? 2, tags: options.weights?.tags ?? 1.5, body: options.weights?.body ?? 1 }
  const prefixMin = options.prefixMinLength ?? 4
  const fuzzy = options.fuzzy ?? 0.2
  const pruneMinRows = options.pruneMinRows ?? 50_000
  const sql = {
    revision: db.prepare<[string], string>('SELECT value FROM fts_state WHERE key = ?').pluck(),
    setRevision: db.prepare<[string, string]>(
      'INSERT INTO fts_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ),
    clearIndex: db.prepare(`INSERT INTO fts_index (fts_index) VALUES ('delete-all')`),
    clearDocs: db.prepare('DELETE FROM fts_docs'),
    anyDoc: db.prepare<[], number>('SELECT 1 FROM fts_docs LIMIT 1').pluck(),
    rowid: db.prepare<[string], number>('SELECT rowid FROM fts_docs WHERE id = ?').pluck(),
    removeIndex: db.prepare<[number]>('DELETE FROM fts_index WHERE rowid = ?'),
    removeDoc: db.prepare<[number]>('DELETE FROM fts_docs WHERE rowid = ?'),
    upsertDoc: db
      .prepare<[string, string, string], number>(
        'INSERT INTO fts_docs (id, type, scope) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET type = excluded.type, scope = excluded.scope RETURNING rowid',
      )
      .pluck(),
    putIndex: db.prepare<[number, string, string, string]>(
      'INSERT OR REPLACE INTO fts_index (rowid, title, tags, body) VALUES (?, ?, ?, ?)',
    ),
    search: db.prepare<
      { match: string; type: string | null; scope: string | null; limit: number },
      { id: string; rank: number }
    >(
      `SELECT d.id AS id, bm25(fts_index, ${w.title}, ${w.tags}, ${w.body}) AS rank
       FROM fts_index JOIN fts_docs d ON d.rowid = fts_index.rowid
       WHERE fts_index MATCH :match AND (:type IS NULL OR d.type = :type) AND (:scope IS NULL OR d.scope = :scope)
       ORDER BY rank, d.id LIMIT :limit`,
    ),
    matchesAny: db.prepare<[string], number>('SELECT 1 FROM fts_index WHERE fts_index MATCH ? LIMIT 1').pluck(),
    clearWords: db.prepare('DELETE FROM fts_words'),
    wordsOfIndex: db.prepare(
      'INSERT OR IGNORE INTO fts_words (length, term) SELECT length(term), term FROM fts_terms WHERE length(term) >= 2',
    ),
    addWord: db.prepare<[number, string]>('INSERT OR IGNORE INTO fts_words (length, term) VALUES (?, ?)'),
    wordsByLength: db
      .prepare<[number, number], string>('SELECT term FROM fts_words WHERE length BETWEEN ? AND ?')
      .pluck(),
    knownWord: db.prepare<[number, string], number>('SELECT 1 FROM fts_words WHERE length = ? AND term = ?').pluck(),
    rows: db.prepare<[], number>('SELECT count(*) FROM fts_docs').pluck(),
    count: db.prepare<[string], number>('SELECT count(*) FROM fts_index WHERE fts_index MATCH ?').pluck(),
    rowScores: db
      .prepare<[string], [number, number]>(
        `SELECT rowid, bm25(fts_index, ${w.title}, ${w.tags}, ${w.body}) FROM fts_index WHERE fts_index MATCH ?`,
      )
      .raw(),
    filteredRowScores: db
      .prepare<{ match: string; type: string | null; scope: string | null }, [number, string, number]>(
        `SELECT d.rowid, d.id, bm25(fts_index, ${w.title}, ${w.tags}, ${w.body})
         FROM fts_index JOIN fts_docs d ON d.rowid = fts_index.rowid
         WHERE fts_index MATCH :match AND (:type IS NULL OR d.type = :type) AND (:scope IS NULL OR d.scope = :scope)`,
      )
      .raw(),
  }
  /**
   * What searches at one revision share: the rows in the index and the rows each word matches
   * (counting a common word's rows walks its whole doclist). Dropped when the revision moves.
   */
  let atRevision: { revision: string | undefined; rows: number; hits: Map<string, number> } | undefined
  let closed = false

  const ensureOpen = () => {
    if (closed) throw new FoundryError('UNAVAILABLE', `ftsRetriever for ${file} is closed`)
  }

  /**
   * FTS5 has no fuzzy search. A term of 5+ characters that matches nothing, even as a prefix, is
   * most likely a typo: the indexed terms within the edit distance of it (or of its stem) stand in.
   */
  function typoVariants(term: string): string[] {
    const max = Math.min(3, Math.round(term.length * fuzzy))
    if (term.length < 5 || max < 1) return []
    // A word of the vocabulary is no typo: one lookup, where asking FTS5 whether anything begins
    // with it builds the whole prefix's doclist. The vocabulary holds Porter stems as FTS5 cuts them
    // after a rebuild; a stem it lacks is asked of FTS5.
    const stem = processTerm(term) ?? term
    if (sql.knownWord.get(stem.length, stem) !== undefined || sql.matchesAny.get(`${quote(term)}*`) !== undefined)
      return []
    const found: Array<[string, number]> = []
    for (const candidate of sql.wordsByLength.all(Math.min(term.length, stem.length) - max, term.length + max)) {
      const d =
        stem === term
          ? boundedDistance(term, candidate, max)
          : Math.min(boundedDistance(term, candidate, max), boundedDistance(stem, candidate, max))
      if (d <= max) found.push([candidate, d])
    }
    return found
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, MAX_VARIANTS)
      .map(([t]) => t)
  }

  /** One read transaction: the counts and scores of a search come from one state of the file. */
  function snapshot<T>(fn: () => T): T {
    return db.inTransaction ? fn() : db.transaction(fn)()
  }

  function statistics(): NonNullable<typeof atRevision> {
    const revision = sql.revision.get(REVISION_KEY)
    if (atRevision?.revision !== revision || !atRevision)
      atRevision = { revision, rows: sql.rows.get()!, hits: new Map() }
    return atRevision
  }

  /**
   * Every row holding a rare word, with its score over all words: bm25() over `R AND (C OR R)`
   * counts the common phrases once and the rare ones twice, bm25() over `R` the rare ones once.
   */
  function scoreRows(rare: string, common: string, filter: { type: string | null; scope: string | null }) {
    const twice = new Map(sql.rowScores.all(`(${rare}) AND (${common} OR ${rare})`))
    return sql.filteredRowScores
      .all({ match: rare, ...filter })
      .map(([rowid, id, once]) => ({ id, score: once - twice.get(rowid)! }))
  }

  return {
    name: 'fts',
    scoreScale: prefixMin > 0 ? SCORE_SCALE : SCORE_SCALE_EXACT_ONLY,
    capabilities: { stemming: true, prefix: prefixMin > 0, fuzzy: fuzzy > 0, segmentation: true },

    async revision() {
      ensureOpen()
      return connection.read(() =>
        sql.revision.get(ANALYZER_KEY) === ANALYZER ? sql.revision.get(REVISION_KEY) : undefined,
      )
    },

    async apply(changes: RetrievalChanges) {
      ensureOpen()
      // The index is a cache of storage: a commit lost to a power cut is replayed from storage, so no sync.
      await connection.write(
        () => {
          if (changes.reset) sql.clearIndex.run(), sql.clearDocs.run(), sql.clearWords.run()
          // Empty, the index is cut this way from now on; otherwise it keeps what it was cut with.
          if (sql.anyDoc.get() === undefined) sql.setRevision.run(ANALYZER_KEY, ANALYZER)
          for (const id of changes.remove) {
            const rowid = sql.rowid.get(id)
            if (rowid !== undefined) sql.removeIndex.run(rowid), sql.removeDoc.run(rowid)
          }
          const docs = dedupe(changes.upsert)
          for (const doc of docs) {
            const rowid = sql.upsertDoc.get(doc.id, doc.type, doc.scope)!
            sql.putIndex.run(rowid, segmentWords(doc.title), segmentWords(doc.tags.join(' ')), segmentWords(doc.body))
          }
          // The vocabulary: FTS5's own after a full rebuild; the new documents' words otherwise (words
          // of removed documents stay until the next rebuild: as typo candidates they match nothing).
          if (changes.reset) sql.wordsOfIndex.run()
          else
            for (const doc of docs)
              for (const word of vocabulary(`${doc.title} ${doc.tags.join(' ')} ${doc.body}`))
                sql.addWord.run(word.length, word)
          sql.setRevision.run(REVISION_KEY, changes.revision)
        },
        { durable: false },
      )
    },

    async search(query: RetrievalQuery): Promise<RetrievalHit[]> {
      ensureOpen()
      const terms = queryTerms(query.text)
      if (!terms.length || query.limit < 1) return []
      const filter = { type: query.type ?? null, scope: query.scope ?? null }
      return connection.read(() =>
        snapshot(() => {
          const { rows, hits } = statistics()
          const count = (expr: string) => {
            let n = hits.get(expr)
            if (n === undefined) hits.set(expr, (n = sql.count.get(expr)!))
            return n
          }
          const variants = fuzzy > 0 ? terms.flatMap(typoVariants) : []
          const words = terms.length + variants.length
          if (words > 1 && words <= PRUNE_MAX_WORDS && rows >= pruneMinRows) {
            const ranked = rankTopK(
              [
                // A word's rows as written: a lower bound of its prefix phrase's rows.
                ...terms.map(
                  (term): Word => ({
                    phrases: termPhrases(term, prefixMin).map((p) => ({ expr: p.expr, hits: count(quote(term)) })),
                  }),
                ),
                ...variants.map((v): Word => ({ phrases: [{ expr: quote(v), hits: count(quote(v)) }] })),
              ],
              query.limit,
              { rows, score: (rare, common) => scoreRows(rare, common, filter) },
            )
            if (ranked) return ranked
          }
          const match = [matchExpression(terms, prefixMin), ...variants.map(quote)].join(' OR ')
          // bm25() is lower-is-better; hits are higher-is-better.
          return sql.search.all({ match, ...filter, limit: query.limit }).map((r) => ({ id: r.id, score: -r.rank }))
        }),
      )
    },

    async close() {
      if (closed) return
      closed = true
      await opened.close()
    },
  }
}

/** The last version of each id wins, so a change set may repeat an id. */
function dedupe(docs: RetrievalDoc[]): RetrievalDoc[] {
  return [...new Map(docs.map((d) => [d.id, d])).values()]
}
