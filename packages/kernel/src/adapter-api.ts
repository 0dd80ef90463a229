// @foundry/kernel/adapter: what an adapter author needs, in one place. A storage implements a
// `StorageDriver` and returns `createStorage(driver)`; a descriptor lets config.json name it. Pure,
// like the root (no `node:` imports).

// A storage: the driver an adapter writes, and the kernel's wrapper around it.
export { createStorage, missingDriverMembers, DRIVER_METHODS } from './create-storage.js'
export { EVENTS_LOG, type StorageDriver } from './storage-driver.js'
export { memoryDriver } from './memory-storage.js'
export type { Storage, StorageChange, StorageEntry, StorageFlags, StorageProblem, ListOptions, WriteOptions, LogPage, Collections, CollectionName, KernelCollection, OpenCollection, RecordOf, JsonValue } from './storage.js'
// Keys and names (createStorage checks them; a driver may for its own paths).
export { COLLECTIONS, assertKey, assertCollection, assertLogName, isValidKey, isCollectionName } from './keys.js'
// Records as text rows, for storages that keep them so (SQLite, PostgreSQL).
export { encodeRecord, decodeRecord, decodeEventText, readRecordRow, readRecordRows } from './record-text.js'

// A retriever.
export type { Retriever, RetrieverCapabilities, RetrievalDoc, RetrievalQuery, RetrievalHit, RetrievalChanges, SnapshotStore } from './retrieval.js'
export { processTerm, segmentWords, isUnspacedWord, STOP_WORDS } from './analyze.js'
export { boundedDistance } from './minisearch/edit-distance.js'

// Registering either: descriptors for the composition root's registry.
export { defineStorage, defineRetriever, type StorageDescriptor, type RetrieverDescriptor, type AdapterSite, type DoctorFinding } from './adapter.js'
// Errors: recognised by brand and code.
export { FoundryError, isFoundryError, type FoundryErrorCode } from './errors.js'
