// Conformance suites: every Storage and Retriever checks itself with one line, under any test runner.
export { storageSuite, STORAGE_CASE_NAMES, type TestFn, type SuiteOptions } from './storage-suite.js'
export { retrieverSuite, memorySnapshotStore, distractors, RETRIEVER_CASE_NAMES } from './retriever-suite.js'
export { calibrateScoreScale } from './calibrate.js'
export { sampleFact, sampleRunbook, sampleContract, sampleArtifact } from './fixtures.js'
export { ok, equal, rejects, SuiteAssertionError } from './expect.js'
export { fillSample, dumpStorage, type StorageDump } from './sample-data.js'
