// @foundry/kernel/adapter: what an adapter author needs, in one place. A storage implements a
// `StorageDriver` and returns `createStorage(driver)` (which checks every collection, key and log
// name before the driver sees it); a descriptor lets config.json name it. Pure, like the root (no
// `node:` imports). Errors (`FoundryError`, `isFoundryError`) come from the root.

// A storage: the driver an adapter writes, and the kernel's wrapper around it (`Storage` is the root's).
export { createStorage, missingDriverMembers } from './create-storage.js'
export { EVENTS_LOG, type StorageDriver } from './storage-driver.js'
// The in-memory reference driver, to wrap or to start from.
export { memoryDriver } from './memory-storage.js'
export type {
  StorageChange,
  StorageEntry,
  StorageFlags,
  ListOptions,
  WriteOptions,
  LogPage,
  CollectionName,
  KernelCollection,
  OpenCollection,
  RecordOf,
} from './storage.js'
// Keys and names, for a driver's own paths.
export { COLLECTIONS, isValidKey, isCollectionName } from './keys.js'
// Records as text rows, for storages that keep them so (SQLite, PostgreSQL).
export { encodeRecord, readRecordRow, readRecordRows } from './record-text.js'

// A retriever (the `Retriever` interface is the root's).
export type { RetrievalDoc, RetrievalQuery, RetrievalHit, RetrievalChanges, SnapshotStore } from './retrieval.js'
export { processTerm, segmentWords, isUnspacedWord, STOP_WORDS } from './analyze.js'
export { boundedDistance } from './edit-distance.js'
export { tokenize } from './analyze.js'
export { lowerBound } from './sorted.js'

// Registering either: descriptors for the composition root's registry.
export {
  defineStorage,
  defineRetriever,
  type StorageDescriptor,
  type RetrieverDescriptor,
  type AdapterSite,
  type DoctorFinding,
} from './adapter.js'
