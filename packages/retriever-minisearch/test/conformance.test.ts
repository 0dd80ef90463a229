import { retrieverSuite } from '@foundry/kernel/testing'
import { test } from 'uvu'
import { minisearchRetriever } from '../src/index.js'

retrieverSuite(test, () => minisearchRetriever(), { prefix: 'minisearchRetriever: ' })
retrieverSuite(test, () => minisearchRetriever({ internals: false }), {
  prefix: 'minisearchRetriever without internals: ',
})

test.run()
