import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { storageSuite } from '@foundry/kernel/testing'
import { test } from 'uvu'
import { fsStorage } from '../src/index.js'

storageSuite(test, () => fsStorage({ root: mkdtempSync(join(tmpdir(), 'foundry-fs-')) }), { prefix: 'fsStorage: ' })

test.run()
