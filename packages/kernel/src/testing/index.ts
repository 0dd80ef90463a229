// Conformance suites: every Storage and Retriever checks itself with one line, under any test runner.
export { storageSuite } from './storage-suite.js'
export { storageChild } from './storage/child.js'
export { retrieverSuite, memorySnapshotStore, distractors } from './retriever-suite.js'
export { calibrateScoreScale } from './calibrate.js'
export { sampleFact, sampleRecords } from './fixtures.js'
export { fillSample, dumpStorage } from './sample-data.js'
