// @foundry/adapter-sqlite: Foundry's records in one SQLite file, and keyword retrieval on FTS5.
export { sqliteStorage, type SqliteStorageOptions } from './sqlite-storage.js'
export { ftsRetriever, type FtsRetrieverOptions } from './fts-retriever.js'
export { sqliteDescriptor, ftsDescriptor, DEFAULT_SQLITE_PATH, type SqliteDescriptorOptions, type FtsDescriptorOptions } from './descriptor.js'
export type { SqliteTarget, OpenOptions } from './open.js'
export { SCHEMA_VERSION } from './schema.js'
