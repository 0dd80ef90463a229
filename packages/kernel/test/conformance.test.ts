import { test } from 'uvu'
import { memoryStorage, minisearchRetriever } from '../src/index.js'
import { retrieverSuite, storageSuite } from '../src/testing/index.js'

storageSuite(test, () => memoryStorage(), { prefix: 'memoryStorage: ' })
retrieverSuite(test, () => minisearchRetriever(), { prefix: 'minisearchRetriever: ' })
retrieverSuite(test, () => minisearchRetriever({ internals: false }), {
  prefix: 'minisearchRetriever without internals: ',
})

test.run()
