// @foundry/kernel: Foundry's pure domain. No `node:` imports anywhere below this file (a test checks the build).
// Every public name is listed here, one group per seam; anything not listed is internal.

// The kernel and its plugin API.
export { createKernel, type Kernel, type KernelOptions } from './kernel.js'
export { definePlugin, DEFAULT_HINTS, type KernelPlugin, type PluginHost, type TraceSpec, type KernelHints } from './plugin.js'

// Errors: recognised by brand and code, never by `instanceof`.
export { FoundryError, isFoundryError, errorMessage, ERROR_CODES, type FoundryErrorCode } from './errors.js'

// The storage seam.
export type { Storage, StorageChange, StorageEntry, StorageFlags, StorageProblem, ListOptions, WriteOptions, LogPage, Collections, CollectionName, KernelCollection, OpenCollection, RecordOf, JsonValue } from './storage.js'
export { COLLECTIONS, assertKey, assertCollection, assertLogName, isValidKey, isCollectionName } from './keys.js'
export { memoryStorage, type MemoryStorageOptions } from './memory-storage.js'
export { copyStorage, type CopyOptions, type CopyReport } from './transfer.js'
export { mergeStorage, type MergeOptions, type MergeReport, type TransferProgress } from './transfer.js'

// The retrieval seam, and the default retriever.
export type { Retriever, RetrieverCapabilities, RetrievalDoc, RetrievalQuery, RetrievalHit, RetrievalChanges, SnapshotStore } from './retrieval.js'
export { minisearchRetriever, type MinisearchRetrieverOptions } from './minisearch/retriever.js'
export { minisearchDescriptor } from './minisearch/descriptor.js'
export { bm25Retriever, type Bm25RetrieverOptions } from './bm25/retriever.js'
export { bm25Descriptor } from './bm25/descriptor.js'
export { processTerm, segmentWords, isUnspacedWord, STOP_WORDS } from './analyze.js'
export { boundedDistance } from './minisearch/edit-distance.js'

// Adapter descriptors, for the composition root's registry.
export { defineStorage, defineRetriever, type StorageDescriptor, type RetrieverDescriptor, type AdapterSite, type DoctorFinding } from './adapter.js'
// Records as text rows, for storages that keep them so (SQLite, PostgreSQL).
export { encodeRecord } from './record-text.js'

// The telemetry seam.
export { safeTelemetry, type Telemetry } from './telemetry.js'

// Services: their interfaces, results and plugins.
export { memoryPlugin, INDEX_KEY } from './memory/memory.js'
export { relevanceUnit, type MemoryService, type FactWriteOptions, type WriteResult, type WriteManyResult, type SearchResult, type SearchHit, type IndexResult, type FactListOptions, type HistoryResult, type ForgetResult } from './memory/service.js'
export { stateOf, statusLine, type FactState, type HistoryEntry } from './memory/lookup.js'
export { buildIndex, type MemoryIndex } from './memory/index-file.js'
export { runbooksPlugin, type RunbookService, type RunbookListResult, type RunbookGetResult } from './runbooks.js'
export { contractsPlugin, type ContractService, type ValidationResult, type ContractInfo } from './contracts/contracts.js'
export { BUILTIN_CONTRACTS } from './contracts/builtin.js'
export { ARTIFACT_MAX_BYTES, JSON_MAX_DEPTH, READ_FULL_MAX_BYTES, measureJson } from './limits.js'
export { blackboardPlugin, sanitizeName, serializeArtifact, type BlackboardService, type BlackboardWriteResult, type BlackboardReadResult, type ArtifactSummary } from './blackboard.js'
export { tokensPlugin, type TokenService, type TokenReport, type TokenFigures } from './token-report.js'
export { firewallPlugin, type FirewallService, type FirewallInput, type FirewallDecision, type FirewallOutcome } from './firewall.js'
export { promptContextPlugin, type PromptContextService, type PromptContext, type RelevantFact } from './prompt/prompt-context.js'
export { promptQuery } from './prompt/prompt-query.js'

// Schemas beside their types.
export {
  FactSchema,
  FactInputSchema,
  ForgetInputSchema,
  FactTypeSchema,
  ConfidenceSchema,
  FACT_TYPES,
  CONFIDENCES,
  FACT_STATUSES,
  TITLE_MAX_CHARS,
  BODY_MAX_WORDS,
  SCOPE_PATTERN,
  SOURCE_PATTERN,
  FACT_ID_PATTERN,
  type Fact,
  type FactInput,
  type ForgetInput,
  type FactType,
  type Confidence,
  type FactStatus,
} from './schema/fact.js'
export { RunbookSchema, ContractSchema, ArtifactSchema, SLUG_PATTERN, CONTRACT_ID_PATTERN, type Runbook, type Contract, type Artifact } from './schema/records.js'
export { EventSchema, EVENT_KINDS, type FoundryEvent, type EventKind, type KernelEventKind } from './schema/event.js'
export {
  SearchInputSchema,
  MemoryWriteInputSchema,
  WRITE_BATCH_MAX,
  NoInputSchema,
  RunbookGetInputSchema,
  ContractValidateInputSchema,
  BlackboardWriteInputSchema,
  BlackboardReadInputSchema,
  type SearchInput,
  type MemoryWriteInput,
  type RunbookGetInput,
  type ContractValidateInput,
  type BlackboardWriteInput,
  type BlackboardReadInput,
} from './schema/inputs.js'
export { ConfigFileSchema, DEFAULT_CONFIG, PROFILES, ENFORCEMENT_LEVELS, resolveConfig, parseConfig, type Config, type ConfigFile, type Enforcement } from './schema/config.js'
export { validator, type Validator } from './schema/validate.js'

// Small domain helpers that adapters and consumers share.
export { estimateTokens } from './tokens.js'
export { dayOf, isActive, renderFactBlock, factId } from './memory/facts.js'
