// @foundry/adapter-postgres: Foundry's records in PostgreSQL, shared by many processes on many machines.
export { postgresStorage, type PostgresStorageOptions } from './postgres-storage.js'
export { migrate, schemaVersion, type MigrationStep, type MigrateOptions } from './migrate.js'
export { STORAGE_COMPONENT, STORAGE_SCHEMA_VERSION, CHANGE_CHANNEL } from './schema.js'
export { redactUrl, redactText } from './url.js'
export { postgresDescriptor, databaseUrl, DATABASE_URL_ENV, type PostgresDescriptorOptions } from './descriptor.js'
export { postgresRetriever, type PostgresRetrieverOptions } from './retriever.js'
export { postgresRetrieverDescriptor, type PostgresRetrieverDescriptorOptions } from './retriever-descriptor.js'
