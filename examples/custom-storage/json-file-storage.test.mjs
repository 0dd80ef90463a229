// The JSON-file storage against Foundry's storage conformance suite (one line), plus its own case.
// `node json-file-storage.test.mjs`: uvu prints the cases; the exit code is non-zero on any failure.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { storageSuite } from '@foundry/kernel/testing'
import { test } from 'uvu'
import { jsonFileStorage } from './json-file-storage.mjs'

const scratch = mkdtempSync(join(tmpdir(), 'foundry-json-file-'))
let stores = 0
const newFile = () => join(scratch, `store-${++stores}.json`)
test.after(() => rmSync(scratch, { recursive: true, force: true }))

storageSuite(test, () => jsonFileStorage({ file: newFile() }), { prefix: 'jsonFileStorage: ' })

test('jsonFileStorage: a second store on the same file (another process) sees each write', async () => {
  const file = newFile()
  const [a, b] = [jsonFileStorage({ file }), jsonFileStorage({ file })]
  await a.put('meta', 'index', 'from a')
  const revision = await b.revision('meta')
  assert.equal(await b.get('meta', 'index'), 'from a')
  await b.put('meta', 'index', 'from b')
  assert.equal(await a.get('meta', 'index'), 'from b')
  assert.notEqual(await a.revision('meta'), revision)
})

test.run()
