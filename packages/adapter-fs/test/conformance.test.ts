import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { storageSuite } from '@foundry/kernel/testing'
import { test } from 'uvu'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

const packageDir = fileURLToPath(new URL('..', import.meta.url))

storageSuite(test, () => fsStorage({ root: tempRoot() }), {
  prefix: 'fsStorage: ',
  fresh: tempRoot,
  open: (root) => fsStorage({ root }),
  spawn: (args) =>
    spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/storage-child.ts', ...args], { cwd: packageDir }),
  processes: { writers: 6, writes: 40, appenders: 6, calls: 60 },
})

test.run()
