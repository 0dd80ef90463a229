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
