// @foundry/adapter-postgres: Foundry's records in PostgreSQL, shared by many processes on many machines.
export { postgresStorage, type PostgresStorageOptions } from './postgres-storage.js'
export { postgresDescriptor } from './descriptor.js'
export { postgresRetriever, type PostgresRetrieverOptions } from './retriever.js'
export { postgresRetrieverDescriptor } from './retriever-descriptor.js'
