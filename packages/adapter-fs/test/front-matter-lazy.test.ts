import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Fact } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { runFixture, tempRoot } from './helpers.js'

const fact = (n: number): Fact => ({
  id: `fact-000${n}`,
  title: `Queue ${n} is Kafka: "why" #${n}`,
  body: 'Body.',
  type: 'decision',
  scope: 'module:billing',
  tags: ['ops', 'db/pg'],
  confidence: 'high',
  source: 'adr-0007',
  created: '2026-01-02T03:04:05.000Z',
  status: 'active',
})

/** What a fixture printed, one JSON value a line, once it exited 0. */
async function linesOf(child: ReturnType<typeof runFixture>): Promise<unknown[]> {
  const run = await child.done
  assert.is(run.code, 0, run.stderr)
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
}

test('a process reading facts as Foundry wrote them never loads the YAML library; a hand-edited one loads it and reads', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  await storage.put('facts', 'fact-0001', fact(1))
  await storage.put('facts', 'fact-0002', fact(2))
  await storage.close?.()
  // A person rewrites the tags as a block list, with a comment: not the form Foundry writes.
  const path = join(root, '.foundry', 'memory', 'facts', 'fact-0002.md')
  const edited = readFileSync(path, 'utf8').replace('tags: [ops, db/pg]\n', '# edited\ntags:\n  - ops\n  - billing\n')
  assert.ok(edited.includes('  - billing'), 'the file was edited')
  writeFileSync(path, edited)

  assert.equal(await linesOf(runFixture('read-facts', [root, 'fact-0001', 'fact-0002'])), [
    { id: 'fact-0001', tags: ['ops', 'db/pg'], yaml: false },
    { id: 'fact-0002', tags: ['ops', 'billing'], yaml: true },
  ])
})

test('a process writing facts loads the YAML library only for front matter past the plain form, and a read gives back what it wrote', async () => {
  const root = tempRoot()
  const odd = { ...fact(2), title: 'two\u2028lines' }
  const file = join(root, 'facts.json')
  writeFileSync(file, JSON.stringify([fact(1), odd]))
  assert.equal(await linesOf(runFixture('write-facts', [root, file])), [
    { id: 'fact-0001', yaml: false },
    { id: 'fact-0002', yaml: true },
  ])
  const storage = fsStorage({ root })
  assert.equal(await storage.get('facts', 'fact-0001'), fact(1))
  assert.equal(await storage.get('facts', 'fact-0002'), odd)
})

test.run()
