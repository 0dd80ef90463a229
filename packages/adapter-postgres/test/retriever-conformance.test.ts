import type { SnapshotStore } from '@foundry/kernel/adapter'
import { retrieverSuite } from '@foundry/kernel/testing'
import { test } from 'uvu'
import { postgresRetriever } from '../src/retriever.js'
import { useServer } from './helpers.js'

const server = useServer(test)

// The suite opens a retriever twice on the same store to check persistence: one database per store.
const databases = new WeakMap<SnapshotStore, Promise<string>>()
const databaseFor = (store: SnapshotStore) =>
  databases.get(store) ?? (databases.set(store, server.fresh()), databases.get(store)!)

retrieverSuite(test, async (store) => postgresRetriever({ url: await databaseFor(store) }), {
  prefix: 'postgresRetriever: ',
})
retrieverSuite(
  test,
  async (store) => postgresRetriever({ url: await databaseFor(store), prefixMinLength: 0, fuzzy: 0 }),
  {
    prefix: 'postgresRetriever (exact words only): ',
  },
)
retrieverSuite(test, async (store) => postgresRetriever({ url: await databaseFor(store), config: 'simple' }), {
  prefix: 'postgresRetriever (config simple): ',
  skip: [
    {
      reason: 'the simple configuration has no stop words: "the of is" matches the words as written',
      tests: ['stop words alone match nothing'],
    },
  ],
})

test.run()
