// @foundry/adapter-postgres: Foundry's records in PostgreSQL, shared by many processes on many machines.
export { migrate, schemaVersion, type MigrationStep, type MigrateOptions } from './migrate.js'
export { redactUrl, redactText } from './url.js'
