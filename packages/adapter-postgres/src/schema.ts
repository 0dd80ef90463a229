import type { MigrationStep } from './migrate.js'

/** The component name of the storage's tables in `foundry_schema`. */
export const STORAGE_COMPONENT = 'storage'

/**
 * The storage's tables, one step per version (see `migrate`). Keys, collections and log names use
 * the "C" collation: byte order, as in the other storages, whatever the database's locale.
 * Released steps are never edited: a change is a new step at the end.
 */
export const STORAGE_MIGRATIONS: readonly MigrationStep[] = [
  {
    about:
      'records of every collection (kernel and open) as text, a revision counter and change log per collection, the event log, append-only logs',
    sql: `
      CREATE TABLE foundry_records (
        collection text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        value text NOT NULL,
        PRIMARY KEY (collection, key)
      );
      -- n counts the collection's writes; token is unique per write across the database (a sequence
      -- never hands a number out twice, even after a rollback); changes at or below log_base are trimmed.
      CREATE SEQUENCE foundry_revision_token;
      CREATE TABLE foundry_revisions (
        collection text COLLATE "C" PRIMARY KEY,
        n bigint NOT NULL,
        token bigint NOT NULL,
        log_base bigint NOT NULL
      );
      CREATE TABLE foundry_changes (
        collection text COLLATE "C" NOT NULL,
        n bigint NOT NULL,
        key text COLLATE "C" NOT NULL,
        token bigint NOT NULL,
        PRIMARY KEY (collection, n)
      );
      CREATE TABLE foundry_events (seq bigserial PRIMARY KEY, event text NOT NULL);
      -- A log's end is one row: appending bumps it (its row lock orders appenders of every process),
      -- so logEnd and logs() never scan entries.
      CREATE TABLE foundry_log_ends (name text COLLATE "C" PRIMARY KEY, seq bigint NOT NULL);
      CREATE TABLE foundry_logs (
        name text COLLATE "C" NOT NULL,
        seq bigint NOT NULL,
        entry text NOT NULL,
        PRIMARY KEY (name, seq)
      );
    `,
  },
]

export const STORAGE_SCHEMA_VERSION = STORAGE_MIGRATIONS.length

/** The channel of change notifications: payload `c:<collection>` or `l:<log>`. */
export const CHANGE_CHANNEL = 'foundry_change'

/** Advisory lock keys (the two-integer form): "FOUN" and a number per purpose. */
export const LOCK_CLASS = 0x464f554e
export const EXCLUSIVE_LOCK = 1
