// @foundry/adapter-sqlite: Foundry's records in one SQLite file, and keyword retrieval on FTS5.
export { sqliteStorage } from './sqlite-storage.js'
export { ftsRetriever } from './fts-retriever.js'
export { sqliteDescriptor, ftsDescriptor } from './descriptor.js'
