import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { retrieverSuite, storageSuite } from '@foundry/kernel/testing'
import type { SnapshotStore } from '@foundry/kernel/adapter'
import { test } from 'uvu'
import { ftsRetriever, sqliteStorage } from '../src/index.js'
import { tempDb } from './helpers.js'

// The suite opens a retriever twice on the same store to check persistence: one file per store.
const files = new WeakMap<SnapshotStore, string>()
const fileFor = (store: SnapshotStore) => files.get(store) ?? (files.set(store, tempDb('fts.db')), files.get(store)!)

const packageDir = fileURLToPath(new URL('..', import.meta.url))

storageSuite(test, () => sqliteStorage({ path: tempDb() }), {
  prefix: 'sqliteStorage: ',
  fresh: () => tempDb(),
  open: (path) => sqliteStorage({ path }),
  spawn: (args) =>
    spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/storage-child.ts', ...args], { cwd: packageDir }),
  processes: { writers: 6, writes: 40, appenders: 6, calls: 40 },
})
retrieverSuite(test, (store) => ftsRetriever({ path: fileFor(store) }), { prefix: 'ftsRetriever: ' })
// MaxScore pruning runs from 50000 rows on by default: here on every query of several words.
retrieverSuite(test, (store) => ftsRetriever({ path: fileFor(store), pruneMinRows: 0 }), {
  prefix: 'ftsRetriever, pruning always: ',
})

test.run()
