// @foundry/adapter-postgres: Foundry's records in PostgreSQL, shared by many processes on many machines.
export { postgresStorage } from './postgres-storage.js'
export { postgresDescriptor } from './descriptor.js'
export { postgresRetriever } from './retriever.js'
export { postgresRetrieverDescriptor } from './retriever-descriptor.js'
