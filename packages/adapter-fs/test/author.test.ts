import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

test('a fact written for a team token keeps its author in the front matter after source, across a reload', async () => {
  const root = tempRoot()
  const first = createKernel({ storage: fsStorage({ root }) })
  await first.memory.write(
    { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' },
    { author: 'walt' },
  )
  await first.memory.write({ title: 'Invoices are numbered per year', body: 'INV-2026-0001.', type: 'convention' })
  await first.close()
  const files = (id: string) => readFileSync(join(root, '.foundry', 'memory', 'facts', `${id}.md`), 'utf8')
  assert.match(files('fact-0001'), /\nsource: conversation\nauthor: walt\ncreated: /)
  assert.not.match(files('fact-0002'), /author:/)
  const second = createKernel({ storage: fsStorage({ root }) })
  try {
    const [a, b] = await second.memory.list({})
    assert.equal([a!.source, a!.author], ['conversation', 'walt'])
    assert.is(b!.author, undefined)
  } finally {
    await second.close()
  }
})

test.run()
