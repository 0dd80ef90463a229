import { test } from 'uvu'
import { memoryStorage } from '../src/index.js'
import { storageSuite } from '../src/testing/index.js'

storageSuite(test, () => memoryStorage(), { prefix: 'memoryStorage: ' })

test.run()
