// The kernel's public API. Pure: no `node:` imports anywhere below this file (a test checks the build).
export { createKernel, snapshotStore, type Kernel, type KernelOptions } from './kernel.js'
export { FoundryError, isFoundryError, errorMessage, ERROR_CODES, type FoundryErrorCode } from './errors.js'
export { assertKey, assertCollection, assertLogName, isCollectionName, isValidKey, COLLECTIONS } from './keys.js'

// Seams: implement these to plug in storage, retrieval and telemetry.
export type { Storage, StorageFlags, StorageProblem, ListOptions, WriteOptions, LogPage, Collections, CollectionName, KernelCollection, OpenCollection, RecordOf, JsonValue } from './storage.js'
export type { Retriever, RetrievalDoc, RetrievalQuery, RetrievalHit, RetrievalChanges, SnapshotStore } from './retrieval.js'
export { defineStorage, defineRetriever, type StorageDescriptor, type RetrieverDescriptor, type AdapterSite } from './adapter.js'
export { storageTelemetry, safeTelemetry, noTelemetry, type Telemetry } from './telemetry.js'

// Built-in implementations.
export { memoryStorage, type MemoryStorageOptions } from './memory-storage.js'
export { copyStorage, type CopyOptions, type CopyReport } from './transfer.js'
export { minisearchRetriever, type MinisearchRetrieverOptions } from './minisearch/retriever.js'
export { minisearchDescriptor } from './minisearch/descriptor.js'
export { processTerm, STOP_WORDS } from './analyze.js'
export { boundedDistance } from './minisearch/edit-distance.js'

// Schemas and their types.
export * from './schema/fact.js'
export * from './schema/records.js'
export * from './schema/event.js'
export * from './schema/inputs.js'
export { ConfigFileSchema, DEFAULT_CONFIG, PROFILES, resolveConfig, parseConfig, ENFORCEMENT_LEVELS, type Config, type ConfigFile, type Enforcement } from './schema/config.js'
export { validator, fieldName, type Validator } from './schema/validate.js'

// Domain helpers consumers and adapters share.
export { estimateTokens, utf8Bytes } from './tokens.js'
export { buildIndex, indexSummary, type MemoryIndex } from './memory/index-file.js'
export { dayOf, isActive, renderFactBlock, factId, factNumber, subjectWords, similarity, SAME_SUBJECT_THRESHOLD } from './memory/facts.js'
export { INDEX_KEY, relevanceUnit, type WriteResult, type SearchResult, type SearchHit, type IndexResult } from './memory/memory.js'
export { isTriggeredBy, triggerPhrases, renderRunbook, type RunbookListResult, type RunbookGetResult } from './runbooks.js'
export { BUILTIN_CONTRACTS } from './contracts/builtin.js'
export type { ValidationResult, ContractInfo } from './contracts/contracts.js'
export { sanitizeName, serializeArtifact, summaryLine, type BlackboardWriteResult, type BlackboardReadResult, type ArtifactSummary } from './blackboard.js'
export type { TokenReport, TokenFigures } from './token-report.js'
