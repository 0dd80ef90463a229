// @foundry/kernel: Foundry's pure domain. No `node:` imports anywhere below this file (a test checks the build).
// Every public name is listed here, for consumers and embedders; adapter authors have
// `@foundry/kernel/adapter`, tool tables `@foundry/kernel/tools`, conformance `@foundry/kernel/testing`.
// A service's results are reachable through `Kernel` (`Awaited<ReturnType<Kernel['memory']['search']>>`).

// The kernel and its plugin API.
export { createKernel, type Kernel } from './kernel.js'
export { definePlugin } from './plugin.js'
export { memoryPlugin, INDEX_KEY } from './memory/memory.js'

// Errors: recognised by brand and code, never by `instanceof`.
export { FoundryError, isFoundryError, errorMessage, ERROR_CODES, type FoundryErrorCode } from './errors.js'

// Storage and retrieval as a consumer holds them; `Collections` is open to declaration merging.
export type { Storage, StorageProblem, Collections, JsonValue } from './storage.js'
export type { Retriever } from './retrieval.js'
export { memoryStorage } from './memory-storage.js'
export { copyStorage, mergeStorage } from './transfer.js'
export { bm25Retriever } from './bm25/retriever.js'
export { bm25Descriptor } from './bm25/descriptor.js'
export { safeTelemetry } from './telemetry.js'

// What the services' results hold, and helpers the consumers share.
export { relevanceUnit } from './memory/service.js'
export { stateOf, statusLine } from './memory/lookup.js'
export { buildIndex } from './memory/index-file.js'
export { dayOf, renderFactBlock, factId } from './memory/facts.js'
export { ARTIFACT_MAX_BYTES, JSON_MAX_DEPTH, measureJson } from './limits.js'
export { WRITE_BATCH_MAX } from './schema/inputs.js'
export { sanitizeName, serializeArtifact } from './blackboard.js'
export { promptQuery } from './prompt/prompt-query.js'
export { estimateTokens } from './tokens.js'

// Schemas beside their types.
export {
  FactSchema,
  FACT_TYPES,
  FACT_ID_PATTERN,
  type Fact,
  type FactInput,
  type FactType,
  type Confidence,
} from './schema/fact.js'
export type { Proposal } from './schema/proposal.js'
export { RunbookSchema, ContractSchema, ArtifactSchema, type Runbook } from './schema/records.js'
export { EVENT_KINDS, type FoundryEvent } from './schema/event.js'
export {
  ConfigFileSchema,
  DEFAULT_CONFIG,
  PROFILES,
  resolveConfig,
  type Config,
  type ConfigFile,
} from './schema/config.js'
export { validator, type Validator } from './schema/validate.js'
