import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel, FoundryError, serializeArtifact, type Fact, type StorageProblem } from '@foundry/kernel'
import { sampleFact, sampleRecords } from '@foundry/kernel/testing'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { parse } from 'yaml'
import { fsStorage } from '../src/index.js'
import { tempRoot, touchLater } from './helpers.js'

const { runbook: sampleRunbook, contract: sampleContract, artifact: sampleArtifact } = sampleRecords

const factsDir = (root: string) => join(root, '.foundry', 'memory', 'facts')
const handWrite = (root: string, relative: string, text: string) => {
  const path = join(root, '.foundry', relative)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
  return path
}

async function corrupt(fn: () => Promise<unknown>): Promise<FoundryError> {
  try {
    await fn()
  } catch (error) {
    if (error instanceof FoundryError && error.code === 'CORRUPT') return error
    throw error
  }
  throw new Error('expected a FoundryError CORRUPT, nothing was thrown')
}

test('a fact is a markdown file: front matter in the documented order, a blank line, the body', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  const fact = sampleFact(7)
  await storage.put('facts', fact.id, fact)
  const text = readFileSync(join(factsDir(root), 'fact-0007.md'), 'utf8')
  const [open, front, body] = /^(---\n)([\s\S]*?)---\n\n([\s\S]*)$/.exec(text)!.slice(1)
  assert.is(open, '---\n')
  assert.equal(
    front!
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(':')[0]),
    ['id', 'title', 'type', 'scope', 'tags', 'confidence', 'source', 'created', 'expires', 'supersedes', 'status'],
  )
  assert.match(front!, /^tags: \[db, migrations\]$/m)
  const { body: expectedBody, ...expectedFront } = fact
  assert.equal(parse(front!), expectedFront, 'any YAML parser reads the front matter back')
  assert.is(body, `${expectedBody}\n`, 'the body as markdown, with a final newline')
  assert.equal(storage.locate('facts', fact.id), join(factsDir(root), 'fact-0007.md'))
})

test('runbooks, contracts, artifacts, INDEX.md, cache and events live at their documented paths', async () => {
  const root = tempRoot()
  const base = join(root, '.foundry')
  const storage = fsStorage({ root })
  await storage.put('runbooks', sampleRunbook.slug, sampleRunbook)
  await storage.put('contracts', sampleContract.id, sampleContract)
  await storage.put('artifacts', 'audit/appsec-reviewer', sampleArtifact)
  await storage.put('meta', 'index', '# Memory index\n')
  await storage.put('meta', 'retriever/minisearch/head', '{}')
  await storage.appendEvent({ ts: '2026-01-01T00:00:00.000Z', kind: 'session_end' })
  const runbook = readFileSync(join(base, 'runbooks', 'deploy-production.md'), 'utf8')
  assert.is(
    runbook,
    `---\ntitle: Deploy to production\ntrigger: deploy, release to prod\n---\n\n${sampleRunbook.body}\n`,
  )
  assert.is(
    readFileSync(join(base, 'contracts', 'incident.v1.json'), 'utf8'),
    `${JSON.stringify(sampleContract.schema, null, 2)}\n`,
  )
  assert.is(
    readFileSync(join(base, 'blackboard', 'audit', 'appsec-reviewer.json'), 'utf8'),
    serializeArtifact(sampleArtifact.data),
  )
  assert.is(readFileSync(join(base, 'memory', 'INDEX.md'), 'utf8'), '# Memory index\n')
  assert.is(readFileSync(join(base, 'cache', 'meta', 'retriever', 'minisearch', 'head'), 'utf8'), '{}')
  assert.is(
    readFileSync(join(base, 'metrics', 'events.jsonl'), 'utf8'),
    '{"ts":"2026-01-01T00:00:00.000Z","kind":"session_end"}\n',
  )
  assert.is(
    storage.locate('artifacts', 'audit/appsec-reviewer'),
    join(base, 'blackboard', 'audit', 'appsec-reviewer.json'),
  )
})

test('.gitignore keeps metrics and the cache out of git, and a team-edited one is left alone', async () => {
  const root = tempRoot()
  await fsStorage({ root }).put('meta', 'index', 'x')
  const ignore = readFileSync(join(root, '.foundry', '.gitignore'), 'utf8')
  assert.match(ignore, /^metrics\/$/m)
  assert.match(ignore, /^cache\/$/m)

  const other = tempRoot()
  handWrite(other, '.gitignore', 'cache/\n')
  await fsStorage({ root: other }).appendEvent({ ts: '2026-01-01T00:00:00.000Z', kind: 'session_end' })
  assert.is(readFileSync(join(other, '.foundry', '.gitignore'), 'utf8'), 'cache/\n')
})

test('the folder option moves the data folder', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root, folder: 'memory-store' })
  await storage.put('facts', 'fact-0001', sampleFact(1))
  assert.is(storage.locate('facts', 'fact-0001'), join(root, 'memory-store', 'memory', 'facts', 'fact-0001.md'))
  assert.ok(
    readFileSync(join(root, 'memory-store', 'memory', 'facts', 'fact-0001.md'), 'utf8').startsWith(
      '---\nid: fact-0001\n',
    ),
  )
})

test('hand-written facts read back: any key order, flow or block lists, defaults for left-out fields, YAML dates', async () => {
  const root = tempRoot()
  handWrite(
    root,
    'memory/facts/fact-0001.md',
    `---
type: convention
title: Branch names use the ticket id
created: 2026-03-04 05:06:07
tags:
  - git
  - naming
expires: 2099-1-5
---
Branches are named \`ABC-123-short-description\`.
`,
  )
  handWrite(
    root,
    'memory/facts/fact-0002.md',
    `---\r\nid: fact-0002\r\ntitle: 42\r\ntype: glossary\r\ntags: [term, 2026]\r\ncreated: 2026-03-04\r\nconfidence: high\r\nsource: code\r\nscope: module:billing\r\nexpires: 2099-12-31T10:00:00Z\r\n---\r\n\r\nThe answer.\r\n`,
  )
  handWrite(
    root,
    'memory/facts/fact-0003.md',
    `---\ntitle: Timestamps are UTC\ntype: constraint\ntags: time, storage\ncreated: 2026-03-04T05:06:07+02:00\n---\n\nStore UTC.\n`,
  )
  const storage = fsStorage({ root })
  const expected: Fact[] = [
    {
      id: 'fact-0001',
      title: 'Branch names use the ticket id',
      body: 'Branches are named `ABC-123-short-description`.',
      type: 'convention',
      scope: 'project',
      tags: ['git', 'naming'],
      confidence: 'medium',
      source: 'conversation',
      created: '2026-03-04T05:06:07.000Z',
      expires: '2099-01-05',
      status: 'active',
    },
    {
      id: 'fact-0002',
      title: '42',
      body: 'The answer.',
      type: 'glossary',
      scope: 'module:billing',
      tags: ['term', '2026'],
      confidence: 'high',
      source: 'code',
      created: '2026-03-04T00:00:00.000Z',
      expires: '2099-12-31',
      status: 'active',
    },
    {
      id: 'fact-0003',
      title: 'Timestamps are UTC',
      body: 'Store UTC.',
      type: 'constraint',
      scope: 'project',
      tags: ['time', 'storage'],
      confidence: 'medium',
      source: 'conversation',
      created: '2026-03-04T05:06:07+02:00',
      status: 'active',
    },
  ]
  assert.equal(await storage.get('facts', 'fact-0001'), expected[0])
  assert.equal(await storage.list('facts'), expected)

  // The kernel reads them like any other fact, and a write goes on from the highest id.
  const kernel = createKernel({ storage })
  assert.is((await kernel.memory.search({ query: 'branch ticket' })).hits[0]?.fact.id, 'fact-0001')
  const written = await kernel.memory.write({
    title: 'Releases are tagged from main',
    body: 'Tag on main only.',
    type: 'convention',
  })
  assert.is(written.id, 'fact-0004')
})

test('a fact without created takes the file modification time', async () => {
  const root = tempRoot()
  handWrite(
    root,
    'memory/facts/fact-0001.md',
    `---\ntitle: Logs go to stderr\ntype: convention\n---\n\nstdout is for protocol messages.\n`,
  )
  const fact = await fsStorage({ root }).get('facts', 'fact-0001')
  assert.ok(
    fact && Math.abs(Date.parse(fact.created) - Date.now()) < 60_000,
    `created ${fact?.created} is the file's time`,
  )
})

test('hand-written runbooks read back: trigger as a list, no blank line before the body', async () => {
  const root = tempRoot()
  handWrite(
    root,
    'runbooks/rotate-keys.md',
    `---\ntrigger: [rotate keys, key rotation]\ntitle: Rotate the API keys\n---\n# Rotate\n\n1. Generate.\n`,
  )
  assert.equal(await fsStorage({ root }).get('runbooks', 'rotate-keys'), {
    slug: 'rotate-keys',
    title: 'Rotate the API keys',
    trigger: 'rotate keys, key rotation',
    body: '# Rotate\n\n1. Generate.',
  })
})

const MALFORMED: Array<[file: string, text: string, problem: RegExp]> = [
  ['memory/facts/fact-0002.md', '---\ntitle: [unclosed\ntype: domain\n---\nBody.\n', /front matter line \d+: .+/],
  [
    'memory/facts/fact-0003.md',
    '---\ntype: domain\ncreated: 2026-01-01T00:00:00Z\n---\nBody.\n',
    /missing required property "title"/,
  ],
  [
    'memory/facts/fact-0004.md',
    '---\ntitle: Wrong type\ntype: opinion\ncreated: 2026-01-01T00:00:00Z\n---\nBody.\n',
    /type must be one of decision \| constraint/,
  ],
  ['memory/facts/fact-0005.md', 'Just some notes, no front matter.\n', /must start with a front matter block/],
  ['memory/facts/fact-0006.md', '---\ntitle: Never closed\ntype: domain\n', /front matter is not closed/],
  [
    'memory/facts/fact-0007.md',
    '---\nid: fact-0099\ntitle: Moved\ntype: domain\ncreated: 2026-01-01T00:00:00Z\n---\nBody.\n',
    /id fact-0099 does not match the file name fact-0007\.md/,
  ],
  [
    'memory/facts/fact-0008.md',
    '---\ntitle: Extra key\ntype: domain\nreviewer: bob\ncreated: 2026-01-01T00:00:00Z\n---\nBody.\n',
    /unknown property "reviewer"/,
  ],
  [
    'memory/facts/fact-0009.md',
    '---\ntitle: Bad date\ntype: domain\ncreated: last tuesday\n---\nBody.\n',
    /created must be a timestamp/,
  ],
  [
    'memory/facts/fact-0010.md',
    '---\ntitle: Dup\ntitle: Dup again\ntype: domain\n---\nBody.\n',
    /front matter line 3: Map keys must be unique/,
  ],
]

test('a malformed file is CORRUPT on get, naming the file and the problem; list skips and reports it, loading the rest', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  await storage.put('facts', 'fact-0001', sampleFact(1))
  await storage.put('facts', 'fact-0011', sampleFact(11))
  for (const [file, text] of MALFORMED) handWrite(root, file, text)
  for (const [file, , problem] of MALFORMED) {
    const key = file.slice('memory/facts/'.length, -'.md'.length)
    const error = await corrupt(() => storage.get('facts', key))
    assert.ok(error.message.includes(join(root, '.foundry', file)), `names the file: ${error.message}`)
    assert.match(error.message, problem)
    assert.not.match(error.message, /\n/, 'one line')
  }
  const problems: StorageProblem[] = []
  const facts = await storage.list('facts', { onProblem: (p) => problems.push(p) })
  assert.equal(
    facts.map((f) => f.id),
    ['fact-0001', 'fact-0011'],
  )
  assert.equal(
    problems.map((p) => p.key),
    MALFORMED.map(([file]) => file.slice('memory/facts/'.length, -'.md'.length)),
  )
  for (const [i, p] of problems.entries()) {
    assert.is(p.collection, 'facts')
    assert.is(p.location, join(root, '.foundry', MALFORMED[i]![0]))
    assert.match(p.message, MALFORMED[i]![2])
  }

  // The kernel keeps working on what it can read, and reports the rest.
  const reported: StorageProblem[] = []
  const kernel = createKernel({ storage, onProblem: (p) => reported.push(p) })
  assert.is(
    (await kernel.memory.write({ title: 'Queues are idempotent', body: 'Consumers dedupe by id.', type: 'domain' })).id,
    'fact-0012',
  )
  assert.equal(
    [...new Set(reported.map((p) => p.key))],
    problems.map((p) => p.key),
    'the kernel reports each bad file',
  )
})

test('malformed contracts and artifacts name the file and the position', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  handWrite(root, 'contracts/broken.v1.json', '{\n  "type": "object",\n  "required": ["a"\n}\n')
  handWrite(root, 'contracts/list.v1.json', '[1, 2]\n')
  handWrite(root, 'blackboard/w1/agent.json', '{"summary": }')
  assert.match(
    (await corrupt(() => storage.get('contracts', 'broken.v1'))).message,
    /contracts\/broken\.v1\.json: invalid JSON at line 4, column 1/,
  )
  assert.match((await corrupt(() => storage.get('contracts', 'list.v1'))).message, /must hold one JSON Schema object/)
  assert.match(
    (await corrupt(() => storage.get('artifacts', 'w1/agent'))).message,
    /blackboard\/w1\/agent\.json: invalid JSON/,
  )
  const problems: StorageProblem[] = []
  assert.equal(await storage.list('contracts', { onProblem: (p) => problems.push(p) }), [])
  assert.is(problems.length, 2)
})

test('files that look like records but are misnamed are reported, other files are ignored', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  await storage.put('facts', 'fact-0001', sampleFact(1))
  handWrite(root, 'memory/facts/my-note.md', '---\ntitle: x\n---\n')
  handWrite(root, 'memory/facts/notes.txt', 'not a record')
  mkdirSync(join(factsDir(root), 'fact-0002.md'))
  const problems: StorageProblem[] = []
  assert.equal(
    (await storage.list('facts', { onProblem: (p) => problems.push(p) })).map((f) => f.id),
    ['fact-0001'],
  )
  assert.equal(problems.map((p) => p.key).sort(), ['fact-0002', 'my-note'])
  assert.match(
    problems.find((p) => p.key === 'my-note')!.message,
    /not named like a facts record \(expected fact-NNNN\.md\)/,
  )
  assert.match(problems.find((p) => p.key === 'fact-0002')!.message, /a folder, not a file/)
})

test('listings keep parsed records in the cache, and re-read a file edited in place', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  for (const n of [1, 2, 3]) await storage.put('facts', sampleFact(n).id, sampleFact(n))
  handWrite(root, 'memory/facts/fact-0004.md', '---\ntitle: Broken\ntype: opinion\n---\nBody.\n')
  const problems: StorageProblem[] = []
  assert.is((await storage.list('facts', { onProblem: (p) => problems.push(p) })).length, 3)
  const cacheFile = join(root, '.foundry', 'cache', 'facts.records.json')
  const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as { entries: Record<string, [string, Fact]> }
  assert.equal(Object.keys(cached.entries).sort(), ['fact-0001', 'fact-0002', 'fact-0003'], 'valid records only')

  const file = join(factsDir(root), 'fact-0002.md')
  writeFileSync(file, readFileSync(file, 'utf8').replace('Title #2', 'Title #9')) // same size, in place
  touchLater(file)
  const again: StorageProblem[] = []
  const facts = await storage.list('facts', { onProblem: (p) => again.push(p) })
  assert.is(facts.find((f) => f.id === 'fact-0002')?.title, sampleFact(9).title)
  assert.is(again.length, 1, 'a bad file is reported on every listing')

  writeFileSync(cacheFile, '{ not json')
  assert.is((await fsStorage({ root }).list('facts')).length, 3, 'an unreadable cache costs a full parse, nothing else')
  await storage.delete('facts', 'fact-0001')
  await storage.list('facts')
  assert.equal(Object.keys((JSON.parse(readFileSync(cacheFile, 'utf8')) as typeof cached).entries).sort(), [
    'fact-0002',
    'fact-0003',
  ])
})

test('put refuses a record that would not read back as it is', async () => {
  const storage = fsStorage({ root: tempRoot() })
  for (const [key, fact, problem] of [
    ['fact-0001', sampleFact(2), /its id fact-0002 differs from the key/],
    ['fact-0001', sampleFact(1, { created: 'the second of January' }), /created must be an ISO 8601 timestamp/],
    ['fact-0001', { ...sampleFact(1), type: 'opinion' } as unknown as Fact, /type must be one of/],
  ] as const) {
    try {
      await storage.put('facts', key, fact)
      assert.unreachable('put should refuse')
    } catch (error) {
      assert.instance(error, FoundryError)
      assert.is((error as FoundryError).code, 'INVALID_INPUT')
      assert.match((error as Error).message, problem)
    }
  }
  assert.equal(await storage.list('facts'), [])
})

test.run()
