import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { storageSuite } from '@foundry/kernel/testing'
import { test } from 'uvu'
import { postgresStorage } from '../src/index.js'
import { useServer } from './helpers.js'

const server = useServer(test)
const packageDir = fileURLToPath(new URL('..', import.meta.url))

// A new, empty database for every case: the suite unchanged, on a real server.
storageSuite(test, async () => postgresStorage({ url: await server.fresh() }), {
  prefix: 'postgresStorage: ',
  fresh: () => server.fresh(),
  open: (url) => postgresStorage({ url }),
  spawn: (args) =>
    spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/storage-child.ts', ...args], { cwd: packageDir }),
  processes: { writers: 6, writes: 40, appenders: 6, calls: 40 },
})
storageSuite(test, async () => postgresStorage({ url: await server.fresh(), revisionCache: false }), {
  prefix: 'postgresStorage (no revision cache): ',
  fresh: () => server.fresh(),
  open: (url) => postgresStorage({ url, revisionCache: false }),
})

test.run()
