import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { type FoundryError, isFoundryError } from '../src/index.js'
import { decision, kernelFor } from './helpers.js'

async function rejectsWith(promise: Promise<unknown>, pattern: RegExp) {
  try {
    await promise
  } catch (error) {
    assert.ok(isFoundryError(error, 'INVALID_INPUT'), `expected INVALID_INPUT, got ${String(error)}`)
    assert.match((error as FoundryError).message, pattern)
    return
  }
  assert.unreachable('expected a rejection')
}

test('write answers with the seed text: created, then the Index line', async () => {
  const k = kernelFor()
  const r = await k.memory.write(
    decision('Persistence layer uses Flyway, not Liquibase', { source: 'adr-0007', confidence: 'high' }),
  )
  assert.is(r.action, 'created')
  assert.is(r.id, 'fact-0001')
  assert.match(r.text, /^created: fact-0001\nIndex: 1\/1 facts listed, ~\d+ tokens, 0 omitted over budget\.$/)
  const stored = await k.storage.get('facts', 'fact-0001')
  assert.equal(
    { ...stored, created: undefined },
    {
      id: 'fact-0001',
      title: 'Persistence layer uses Flyway, not Liquibase',
      body: decision('').body,
      type: 'decision',
      scope: 'project',
      tags: [],
      confidence: 'high',
      source: 'adr-0007',
      created: undefined,
      status: 'active',
    },
  )
  assert.match(stored?.created ?? '', /^2026-11-30T12:00:0\d\.000Z$/, 'the kernel clock, as an ISO timestamp')
})

test('defaults: scope project, tags [], confidence medium, source conversation', async () => {
  const k = kernelFor()
  await k.memory.write({
    title: 'Money is stored in integer cents',
    body: 'All amounts are integer cents.',
    type: 'convention',
  })
  const f = await k.memory.get('fact-0001')
  assert.equal([f.scope, f.tags, f.confidence, f.source], ['project', [], 'medium', 'conversation'])
})

test('ids are gapless and never reused, superseded facts included', async () => {
  const k = kernelFor()
  for (let i = 1; i <= 12; i++)
    await k.memory.write({ title: `Service ${'abcdefghijkl'[i - 1]} owns topic ${i}`, body: 'x', type: 'domain' })
  const ids = (await k.memory.list({ status: 'all' })).map((f) => f.id)
  assert.equal(
    ids,
    Array.from({ length: 12 }, (_, i) => `fact-${String(i + 1).padStart(4, '0')}`),
  )
})

test('an identical fact is not written twice; the answer names the existing id', async () => {
  const k = kernelFor()
  await k.memory.write(decision('Persistence layer uses Flyway'))
  const before = await k.storage.revision('facts')
  const r = await k.memory.write(decision('persistence layer uses flyway.', { body: `  ${decision('').body}  ` }))
  assert.is(r.action, 'duplicate')
  assert.is(r.id, 'fact-0001')
  assert.match(r.text, /^exists: fact-0001 \(identical fact, nothing written\)\nIndex: 1\/1 facts listed/)
  assert.is(await k.storage.revision('facts'), before, 'nothing written')
})

test('a fact on the same subject supersedes the old one, which stays with status superseded', async () => {
  const k = kernelFor()
  await k.memory.write({ title: 'API timeout is 30 seconds', body: 'Gateway default.', type: 'constraint' })
  await k.memory.write({ title: 'Uploads are limited to 10 MB', body: 'Nginx limit.', type: 'constraint' })
  const r = await k.memory.write({
    title: 'API timeout is 60 seconds',
    body: 'Raised for reports.',
    type: 'constraint',
  })
  assert.is(r.text.split('\n')[0], 'created: fact-0003 (supersedes fact-0001)')
  assert.is(r.supersedes, 'fact-0001')
  const old = await k.memory.get('fact-0001')
  assert.is(old.status, 'superseded')
  assert.is(old.supersededBy, 'fact-0003')
  assert.is((await k.memory.get('fact-0003')).supersedes, 'fact-0001')
  assert.equal(
    (await k.memory.list()).map((f) => f.id),
    ['fact-0002', 'fact-0003'],
    'active facts',
  )
  assert.equal(
    (await k.memory.list({ status: 'superseded' })).map((f) => f.id),
    ['fact-0001'],
  )
})

test('supersedes chains: each new version supersedes the active one', async () => {
  const k = kernelFor()
  for (const n of [30, 60, 90])
    await k.memory.write({ title: `API timeout is ${n} seconds`, body: `Set to ${n}.`, type: 'constraint' })
  const all = await k.memory.list({ status: 'all' })
  assert.equal(
    all.map((f) => [f.id, f.status, f.supersedes ?? null, f.supersededBy ?? null]),
    [
      ['fact-0001', 'superseded', null, 'fact-0002'],
      ['fact-0002', 'superseded', 'fact-0001', 'fact-0003'],
      ['fact-0003', 'active', 'fact-0002', null],
    ],
  )
})

test('the same-subject rule needs the same type and scope', async () => {
  const k = kernelFor()
  await k.memory.write({ title: 'API timeout is 30 seconds', body: 'a', type: 'constraint' })
  const other = await k.memory.write({
    title: 'API timeout is 60 seconds',
    body: 'b',
    type: 'constraint',
    scope: 'module:reports',
  })
  assert.is(other.supersedes, undefined, 'other scope')
  const otherType = await k.memory.write({ title: 'API timeout is 45 seconds', body: 'c', type: 'metric' })
  assert.is(otherType.supersedes, undefined, 'other type')
  const unrelated = await k.memory.write({ title: 'API pagination uses cursors', body: 'd', type: 'constraint' })
  assert.is(unrelated.supersedes, undefined, 'different subject')
})

test('a close fact left active is named after the seed lines, in text and in similar', async () => {
  const k = kernelFor()
  await k.memory.write({ title: 'API v1 endpoints are deprecated', body: 'Use v2.', type: 'constraint' })
  const r = await k.memory.write({ title: 'API v2 endpoints are deprecated', body: 'Use v3.', type: 'constraint' })
  assert.is(r.supersedes, undefined)
  const lines = r.text.split('\n')
  assert.is(lines[0], 'created: fact-0002')
  assert.match(lines[1]!, /^Index: 2\/2 facts listed/)
  assert.is(
    lines[2],
    'similar: fact-0001 "API v1 endpoints are deprecated" (not superseded: different subject: "v1" → "v2"; pass supersedes: "fact-0001" to replace it)',
  )
  assert.is(lines.length, 3)
  assert.equal(r.similar, [
    { id: 'fact-0001', title: 'API v1 endpoints are deprecated', reason: 'different subject: "v1" → "v2"' },
  ])
  const unrelated = await k.memory.write({ title: 'Uploads are limited to 10 MB', body: 'Nginx.', type: 'constraint' })
  assert.is(unrelated.similar, undefined, 'absent when nothing is close')
  assert.is(unrelated.text.split('\n').length, 2)
})

test('similar names at most three facts, the closest first, then the newest', async () => {
  const k = kernelFor()
  for (const n of [16, 18, 20, 22])
    await k.memory.write({ title: `Node ${n} is not supported`, body: 'x', type: 'constraint' })
  await k.memory.write({ title: 'Node 14 is not supported on Alpine', body: 'x', type: 'constraint' })
  const r = await k.memory.write({ title: 'Node 24 is not supported', body: 'x', type: 'constraint' })
  assert.equal(
    r.similar?.map((s) => s.id),
    ['fact-0004', 'fact-0003', 'fact-0002'],
  )
  assert.is(r.text.split('\n').length, 5)
})

test('supersede: false keeps the old fact and names it; supersedes still replaces the fact it names', async () => {
  const k = kernelFor()
  await k.memory.write({ title: 'API timeout is 30 seconds', body: 'Gateway default.', type: 'constraint' })
  const kept = await k.memory.write({
    title: 'API timeout is 60 seconds',
    body: 'For reports only.',
    type: 'constraint',
    supersede: false,
  })
  assert.is(kept.supersedes, undefined)
  assert.equal(kept.similar, [{ id: 'fact-0001', title: 'API timeout is 30 seconds', reason: 'supersede is false' }])
  assert.equal(
    (await k.memory.list()).map((f) => f.id),
    ['fact-0001', 'fact-0002'],
  )
  const named = await k.memory.write({
    title: 'API timeout is 90 seconds',
    body: 'Everywhere.',
    type: 'constraint',
    supersede: false,
    supersedes: 'fact-0001',
  })
  assert.is(named.supersedes, 'fact-0001')
  assert.equal(
    named.similar?.map((s) => [s.id, s.reason]),
    [['fact-0002', 'supersedes names fact-0001']],
  )
  assert.equal(
    (await k.memory.list()).map((f) => f.id),
    ['fact-0002', 'fact-0003'],
  )
  await rejectsWith(
    k.memory.write({ title: 'API timeout is 5 seconds', body: 'x', type: 'constraint', supersede: 'no' }),
    /supersede must be boolean/,
  )
})

test('a body rewritten under the same title supersedes; the same title and body is a duplicate', async () => {
  const k = kernelFor()
  await k.memory.write({
    title: 'Invoices are immutable once sent',
    body: 'Corrections are credit notes.',
    type: 'constraint',
  })
  const r = await k.memory.write({
    title: 'Invoices are immutable once sent.',
    body: 'Corrections are new invoices.',
    type: 'constraint',
  })
  assert.is(r.supersedes, 'fact-0001')
  assert.is(r.similar, undefined)
})

test('explicit supersedes names the fact to replace; a wrong id is a clear error', async () => {
  const k = kernelFor()
  await k.memory.write({
    title: 'Queues use RabbitMQ',
    body: 'Why: ops know it.\nHow to apply: use amqp.',
    type: 'decision',
  })
  const r = await k.memory.write({
    title: 'Messaging moves to SQS',
    body: 'Why: managed.\nHow to apply: use the SDK.',
    type: 'decision',
    supersedes: 'fact-0001',
  })
  assert.is(r.supersedes, 'fact-0001')
  await rejectsWith(
    k.memory.write({ title: 'Messaging moves to Kafka', body: 'x', type: 'domain', supersedes: 'fact-0001' }),
    /supersedes names fact-0001, which is already superseded by fact-0002/,
  )
  await rejectsWith(
    k.memory.write({ title: 'Messaging moves to Kafka', body: 'x', type: 'domain', supersedes: 'fact-0099' }),
    /fact-0099, which does not exist/,
  )
})

test('limits and enums: bad input names the field and stores nothing', async () => {
  const k = kernelFor()
  const base = { title: 'Money is stored in integer cents', body: 'All amounts.', type: 'convention' }
  await rejectsWith(k.memory.write({ ...base, title: 'x'.repeat(81) }), /title must be at most 80 characters/)
  await rejectsWith(
    k.memory.write({ ...base, body: Array(121).fill('word').join(' ') }),
    /body has 121 words; the limit is 120/,
  )
  await rejectsWith(
    k.memory.write({ ...base, type: 'opinion' }),
    /type must be one of decision \| constraint \| convention \| domain \| risk \| metric \| glossary/,
  )
  await rejectsWith(
    k.memory.write({ ...base, confidence: 'certain' }),
    /confidence must be one of high \| medium \| low/,
  )
  await rejectsWith(k.memory.write({ ...base, scope: 'team:x' }), /scope has the wrong form/)
  await rejectsWith(k.memory.write({ ...base, source: 'slack' }), /source has the wrong form/)
  await rejectsWith(k.memory.write({ ...base, tags: 'a,b' }), /tags must be array/)
  await rejectsWith(k.memory.write({ ...base, expires: '2026-13-01' }), /expires 2026-13-01 is not a calendar date/)
  await rejectsWith(k.memory.write({ ...base, expires: '2020-01-01' }), /expires 2020-01-01 is already past/)
  await rejectsWith(k.memory.write({ ...base, colour: 'red' }), /unknown property "colour"/)
  await rejectsWith(k.memory.write({ body: 'x', type: 'domain' }), /missing required property "title"/)
  await rejectsWith(k.memory.write({ ...base, title: '   ' }), /title must not be empty/)
  assert.is((await k.memory.list({ status: 'all' })).length, 0, 'nothing stored')
})

test('decisions and risks need Why: and How to apply: lines', async () => {
  const k = kernelFor()
  await rejectsWith(
    k.memory.write({ title: 'Use Flyway', body: 'Because SQL.', type: 'decision' }),
    /must include "Why:" and "How to apply:", each at the start of a line or of a sentence \(missing "Why:" and "How to apply:"\)/,
  )
  await rejectsWith(
    k.memory.write({ title: 'Token leak in logs', body: 'Why: headers are logged.', type: 'risk' }),
    /missing "How to apply:"/,
  )
  const ok = await k.memory.write({
    title: 'Token leak in logs',
    body: '**Why:** headers are logged.\n**How to apply:** redact Authorization.',
    type: 'risk',
  })
  assert.is(ok.action, 'created')
})

test('expired facts are not listed, indexed or returned, and stay on disk', async () => {
  let now = Date.parse('2026-11-30T12:00:00Z')
  const k = kernelFor({}, { now: () => new Date(now) })
  await k.memory.write({
    title: 'Freeze deploys during the sale',
    body: 'Black Friday freeze.',
    type: 'constraint',
    expires: '2026-12-01',
  })
  await k.memory.write({ title: 'Deploys need a green build', body: 'Always.', type: 'constraint' })
  assert.is(
    (await k.memory.search({ query: 'freeze deploys' })).hits[0]?.fact.id,
    'fact-0001',
    'active on its expiry day',
  )
  now = Date.parse('2026-12-02T00:00:00Z')
  const r = await k.memory.search({ query: 'freeze sale' })
  assert.equal(r.hits, [])
  assert.is(r.text, 'No stored fact matches "freeze sale". Memory holds 1 active facts.')
  assert.equal(
    (await k.memory.list()).map((f) => f.id),
    ['fact-0002'],
  )
  assert.equal(
    (await k.memory.list({ status: 'expired' })).map((f) => f.id),
    ['fact-0001'],
  )
  const index = await k.memory.index()
  assert.not.match(index.index.text, /fact-0001/)
  assert.ok(await k.storage.get('facts', 'fact-0001'), 'still stored')
})

test('every write rebuilds INDEX.md', async () => {
  const k = kernelFor()
  await k.memory.write({ title: 'Money is stored in integer cents', body: 'x', type: 'convention' })
  assert.match((await k.storage.get('meta', 'index')) ?? '', /fact-0001 · medium · Money is stored in integer cents/)
  await k.memory.write({
    title: 'Invoices are immutable once sent',
    body: 'y',
    type: 'constraint',
    scope: 'module:billing',
  })
  assert.match(
    (await k.storage.get('meta', 'index')) ?? '',
    /fact-0002 · medium · Invoices are immutable once sent · module:billing/,
  )
})

test.run()
