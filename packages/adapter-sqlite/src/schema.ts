import { FoundryError } from '@foundry/kernel'
import type { Database } from './connection.js'

export interface Migration {
  /** What the step adds, for readers of this file. */
  about: string
  sql: string
}

/**
 * The file's schema, one step per version: step `i` takes a file from version `i` to `i + 1`, and
 * the version is `PRAGMA user_version`. One list serves the storage and the FTS retriever, so any
 * file either of them opens has every table (unused ones stay empty). Released steps are never
 * edited: a change is a new step at the end.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    about: 'storage: records as JSON (meta as text), a revision counter and a change log per collection, the event log',
    sql: `
      CREATE TABLE records (
        collection TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (collection, key)
      );
      -- revision counts the collection's writes; tag is unique per write, so a number reused after a
      -- rollback never yields the same token; changes older than log_base have been trimmed.
      CREATE TABLE revisions (
        collection TEXT PRIMARY KEY,
        revision INTEGER NOT NULL,
        tag TEXT NOT NULL,
        log_base INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE changes (
        collection TEXT NOT NULL,
        revision INTEGER NOT NULL,
        key TEXT NOT NULL,
        tag TEXT NOT NULL,
        PRIMARY KEY (collection, revision)
      ) WITHOUT ROWID;
      CREATE TABLE events (seq INTEGER PRIMARY KEY, event TEXT NOT NULL);
    `,
  },
  {
    about:
      'retrieval: an FTS5 index of title, tags and body (Porter stemming), the filter fields, its vocabulary, and the revision it reflects',
    sql: `
      CREATE TABLE fts_docs (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        scope TEXT NOT NULL
      );
      CREATE VIRTUAL TABLE fts_index USING fts5(
        title, tags, body,
        content = '', contentless_delete = 1,
        tokenize = 'porter unicode61'
      );
      CREATE VIRTUAL TABLE fts_terms USING fts5vocab(fts_index, 'row');
      -- The vocabulary by length, for typo lookups: reading fts_terms walks the whole index.
      CREATE TABLE fts_words (length INTEGER NOT NULL, term TEXT NOT NULL, PRIMARY KEY (length, term)) WITHOUT ROWID;
      CREATE TABLE fts_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    `,
  },
  {
    about:
      'storage: append-only logs, entries numbered from 1 per log without gaps (the number is the cursor after the entry)',
    sql: `
      -- Keyed by (name, seq): logEnd is max(seq) for a name, one lookup in the key's index. A rowid
      -- table, so entries of any size stay out of that index.
      CREATE TABLE logs (
        name TEXT NOT NULL,
        seq INTEGER NOT NULL,
        entry TEXT NOT NULL,
        PRIMARY KEY (name, seq)
      );
    `,
  },
]

export const SCHEMA_VERSION = MIGRATIONS.length

export function schemaVersion(db: Database): number {
  return Number(db.pragma('user_version', { simple: true }))
}

/**
 * Bring the file to `SCHEMA_VERSION` in one IMMEDIATE transaction (processes opening a new file at
 * once migrate it once). Throws CONFLICT for a file newer than this code, or one that holds tables
 * but is not a Foundry file. `target` exists for tests that build an older file.
 */
export function migrate(db: Database, file: string, target = SCHEMA_VERSION): void {
  if (check(db, file) >= target) return
  db.exec('BEGIN IMMEDIATE')
  try {
    const found = check(db, file)
    for (let v = found; v < target; v++) db.exec(MIGRATIONS[v]!.sql)
    if (found < target) db.pragma(`user_version = ${target}`)
    db.exec('COMMIT')
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw error
  }
}

function check(db: Database, file: string): number {
  const version = schemaVersion(db)
  if (version > SCHEMA_VERSION)
    throw new FoundryError(
      'CONFLICT',
      `${file} has schema version ${version}, newer than the ${SCHEMA_VERSION} this @foundry/adapter-sqlite understands: upgrade @foundry/adapter-sqlite, or export the data with the newer version`,
    )
  if (
    version === 0 &&
    db.prepare(`SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'`).pluck().get() !== 0
  )
    throw new FoundryError(
      'CONFLICT',
      `${file} is an SQLite database that Foundry did not create (it has tables but no Foundry schema version): point sqlite.path at a new file`,
    )
  return version
}
