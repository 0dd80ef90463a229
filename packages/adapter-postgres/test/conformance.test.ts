import { storageSuite } from '@foundry/kernel/testing'
import { test } from 'uvu'
import { postgresStorage } from '../src/index.js'
import { useServer } from './helpers.js'

const server = useServer(test)

// A new, empty database for every case: the suite unchanged, on a real server.
storageSuite(test, async () => postgresStorage({ url: await server.fresh() }), { prefix: 'postgresStorage: ' })
storageSuite(test, async () => postgresStorage({ url: await server.fresh(), revisionCache: false }), { prefix: 'postgresStorage (no revision cache): ' })

test.run()
