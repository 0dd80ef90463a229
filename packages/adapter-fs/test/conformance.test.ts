import { storageSuite } from '@foundry/kernel/testing'
import { test } from 'uvu'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

storageSuite(test, () => fsStorage({ root: tempRoot() }), { prefix: 'fsStorage: ' })

test.run()
