import type { Statement } from './connection.js'
import { CHANGE_CHANNEL } from './schema.js'

/** The storage's write statements (see postgresStorage). */

// Each write is one statement, so one round trip and its own transaction outside a section: the
// record, the collection's revision and change log, and the notification (delivered at commit).
// A relaxed write outside a section also turns synchronous_commit off for its own transaction.
export const relaxedTail = (relaxed: boolean) => (relaxed ? `, set_config('synchronous_commit', 'off', true)` : '')

const BUMP = `
  bump AS (
    INSERT INTO foundry_revisions (collection, n, token, log_base) VALUES ($1, 1, nextval('foundry_revision_token'), 0)
    ON CONFLICT (collection) DO UPDATE SET n = foundry_revisions.n + 1, token = EXCLUDED.token
    RETURNING n, token, log_base
  ),
  logged AS (INSERT INTO foundry_changes (collection, n, key, token) SELECT $1, n, $2, token FROM bump)`

export const putSql = (relaxed: boolean) => `
  WITH put AS (
    INSERT INTO foundry_records (collection, key, value) VALUES ($1, $2, $3)
    ON CONFLICT (collection, key) DO UPDATE SET value = EXCLUDED.value
  ),
  ${BUMP}
  SELECT n, token, log_base, pg_notify('${CHANGE_CHANNEL}', 'c:' || $1)${relaxedTail(relaxed)} FROM bump`

/** The records of one collection under any of the keys `$2`. */
export const GET_MANY = 'SELECT key, value FROM foundry_records WHERE collection = $1 AND key = ANY($2::text[])'

/** A put inside a section whose revision token (`$4`) was drawn when the section began. */
export const PUT_WITH_TOKEN = putSql(false).replace("nextval('foundry_revision_token')", '$4::bigint')

export const deleteSql = (relaxed: boolean) => `
  WITH gone AS (DELETE FROM foundry_records WHERE collection = $1 AND key = $2 RETURNING 1),
  ${BUMP.replace("VALUES ($1, 1, nextval('foundry_revision_token'), 0)", "SELECT $1, 1, nextval('foundry_revision_token'), 0 WHERE EXISTS (SELECT 1 FROM gone)")}
  SELECT n, token, log_base, pg_notify('${CHANGE_CHANNEL}', 'c:' || $1)${relaxedTail(relaxed)} FROM bump`

export const appendSql = (relaxed: boolean) => `
  WITH bump AS (
    INSERT INTO foundry_log_ends (name, seq) VALUES ($1, $3)
    ON CONFLICT (name) DO UPDATE SET seq = foundry_log_ends.seq + $3
    RETURNING seq
  ),
  added AS (
    INSERT INTO foundry_logs (name, seq, entry)
    SELECT $1, bump.seq - $3 + e.ord, e.entry FROM bump, unnest($2::text[]) WITH ORDINALITY AS e(entry, ord)
  )
  SELECT seq, pg_notify('${CHANGE_CHANNEL}', 'l:' || $1)${relaxedTail(relaxed)} FROM bump`

/**
 * Many records of one collection in one statement (`putMany`): the records, the revision bumped by
 * their count, one change each (numbered in order), one notification. `count` distinct keys, their
 * key and value parameters from `$2` on; `token`: the revision token's SQL (a sequence draw, or the
 * parameter of a token drawn when the section began).
 */
function putManySql(count: number, token: string, relaxed: boolean): string {
  const rows = Array.from({ length: count }, (_, i) =>
    i === 0 ? '($2::text, $3::text, 1)' : `($${2 * i + 2}, $${2 * i + 3}, ${i + 1})`,
  )
  return `
  WITH rows (key, value, o) AS (VALUES ${rows.join(', ')}),
  put AS (
    INSERT INTO foundry_records (collection, key, value) SELECT $1, key, value FROM rows
    ON CONFLICT (collection, key) DO UPDATE SET value = EXCLUDED.value
  ),
  bump AS (
    INSERT INTO foundry_revisions (collection, n, token, log_base) VALUES ($1, ${count}, ${token}, 0)
    ON CONFLICT (collection) DO UPDATE SET n = foundry_revisions.n + ${count}, token = EXCLUDED.token
    RETURNING n, token, log_base
  ),
  logged AS (INSERT INTO foundry_changes (collection, n, key, token) SELECT $1, bump.n - ${count} + rows.o, rows.key, bump.token FROM bump, rows)
  SELECT n, token, log_base, pg_notify('${CHANGE_CHANNEL}', 'c:' || $1)${relaxedTail(relaxed)} FROM bump`
}

/**
 * One put, or a putMany's records of one collection (distinct keys, `[key, text]`), as one statement;
 * `drawn`: a revision token the section drew (see postgresStorage), else one from the sequence.
 */
export function writeSql(
  c: string,
  rows: ReadonlyArray<readonly [string, string]>,
  drawn: string | undefined,
  relaxed: boolean,
): Statement {
  if (rows.length === 1) {
    const [key, text] = rows[0]!
    if (drawn !== undefined) return { text: PUT_WITH_TOKEN, values: [c, key, text, drawn] }
    return { name: relaxed ? 'foundry_put_relaxed' : 'foundry_put', text: putSql(relaxed), values: [c, key, text] }
  }
  const values: unknown[] = [c, ...rows.flat()]
  const token = drawn === undefined ? "nextval('foundry_revision_token')" : `$${values.push(drawn)}::bigint`
  return { text: putManySql(rows.length, token, relaxed), values }
}

/** A row of `changesSql`: the revision now (on every row), the token of the change `since` names, and one change after it (key null: none). */
export interface ChangeRow {
  n: string
  token: string
  log_base: string
  at: string | null
  key: string | null
  value: string | null
}

/**
 * `changes()` in one statement: the collection's revision row, the token the log holds for change
 * `from` (to check `since` names a write this database remembers), and, when the log still reaches
 * back to `from`, the changes after it in order (with their records' text when `values`). Every
 * table is reached by `$1` itself, so each lookup is a range of its primary key.
 */
export const changesSql = (c: string, from: number, token: string, values: boolean): Statement => ({
  name: values ? 'foundry_changes_since_values' : 'foundry_changes_since',
  text: `SELECT rv.n::text AS n, rv.token::text AS token, rv.log_base::text AS log_base,
      (SELECT c0.token::text FROM foundry_changes c0 WHERE c0.collection = $1 AND c0.n = $2) AS at,
      ch.key, ${values ? 'r.value' : 'NULL::text AS value'}
    FROM foundry_revisions rv
    LEFT JOIN foundry_changes ch ON ch.collection = $1 AND ch.n > $2 AND ch.n <= rv.n
      AND (($2 = 0 AND rv.log_base = 0) OR ($2 > rv.log_base AND EXISTS
        (SELECT 1 FROM foundry_changes c1 WHERE c1.collection = $1 AND c1.n = $2 AND c1.token::text = $3)))
    ${values ? 'LEFT JOIN foundry_records r ON r.collection = $1 AND r.key = ch.key' : ''}
    WHERE rv.collection = $1
    ORDER BY ch.n`,
  values: [c, from, token],
})
