// The JSON-file storage against Foundry's storage conformance suite, in one call: every group its
// flags claim, the reopen group on a file (a second instance sees the first one's writes), and each
// group it does not claim printed with the reason. `node json-file-storage.test.mjs`: uvu prints the
// cases; the exit code is non-zero on any failure.
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

storageSuite(test, () => jsonFileStorage({ file: newFile() }), {
  prefix: 'jsonFileStorage: ',
  fresh: newFile,
  open: (file) => jsonFileStorage({ file }),
})

test.run()
