import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { copyStorage, memoryStorage, mergeStorage, type Fact, type Storage } from '../src/index.js'
import type { TransferProgress } from '../src/transfer.js'
import { newEvents, planLog, planMerge } from '../src/merge-plan.js'
import { kernelFor } from './helpers.js'

const fact = (n: number, title: string, extra: Partial<Fact> = {}): Fact => ({
  id: `fact-${String(n).padStart(4, '0')}`,
  title,
  body: `${title}, because the team agreed.`,
  type: 'convention',
  scope: 'project',
  tags: [],
  confidence: 'medium',
  source: 'conversation',
  created: '2026-01-01T00:00:00.000Z',
  status: 'active',
  ...extra,
})
const side = (facts: Fact[], records: Array<{ collection: string; key: string; value: unknown }> = []) => ({
  facts,
  records,
})
const deploy = { slug: 'deploy', title: 'Deploy', body: '1. Tag.\n2. Push.' }

test('plan: an identical fact is deduplicated, whatever its id; case, spacing and final punctuation do not count', () => {
  const project = [fact(1, 'Handlers are idempotent'), fact(2, 'Money is integer cents')]
  const incoming = [
    fact(1, 'Handlers are idempotent'),
    fact(7, 'money is  integer cents.', { body: 'Money is integer cents, because the team agreed' }),
  ]
  const plan = planMerge(side(incoming), side(project))
  assert.equal(plan.duplicates, [
    { id: 'fact-0001', existing: 'fact-0001' },
    { id: 'fact-0007', existing: 'fact-0002' },
  ])
  assert.equal(plan.ids, { 'fact-0007': 'fact-0002' }, 'the mapping names the duplicate stored under another id')
  assert.equal(plan.addFacts, [])
  assert.equal(plan.updateFacts, [])
})

test('plan: another type, scope or body is not a duplicate', () => {
  const project = [fact(1, 'Handlers are idempotent')]
  const incoming = [
    fact(1, 'Handlers are idempotent', { type: 'constraint' }),
    fact(2, 'Handlers are idempotent', { scope: 'module:payments' }),
    fact(3, 'Handlers are idempotent', { body: 'Another reason.' }),
  ]
  const plan = planMerge(side(incoming), side(project))
  assert.equal(plan.duplicates, [])
  assert.equal(
    plan.addFacts.map((f) => f.id),
    ['fact-0002', 'fact-0003', 'fact-0004'],
  )
  assert.equal(plan.ids, { 'fact-0001': 'fact-0004' })
})

test('plan: a taken id gets the next free one above every id in use; a free id is kept', () => {
  const project = [fact(1, 'A is true'), fact(2, 'B is true'), fact(3, 'C is true')]
  const incoming = [fact(1, 'X is true'), fact(2, 'Y is true'), fact(5, 'Z is true')]
  const plan = planMerge(side(incoming), side(project))
  assert.equal(plan.ids, { 'fact-0001': 'fact-0006', 'fact-0002': 'fact-0007' })
  assert.equal(
    plan.addFacts.map((f) => [f.id, f.title]),
    [
      ['fact-0005', 'Z is true'],
      ['fact-0006', 'X is true'],
      ['fact-0007', 'Y is true'],
    ],
  )
})

test('plan: supersedes and supersededBy are rewritten to the new ids; a dangling reference is dropped and reported', () => {
  const project = [fact(1, 'Unrelated project fact'), fact(2, 'Another project fact')]
  const incoming = [
    fact(1, 'API timeout is 30 seconds', { status: 'superseded', supersededBy: 'fact-0002' }),
    fact(2, 'API timeout is 60 seconds', { supersedes: 'fact-0001' }),
    fact(3, 'Retries are capped at 3', { supersedes: 'fact-0009' }),
  ]
  const plan = planMerge(side(incoming), side(project))
  assert.equal(plan.ids, { 'fact-0001': 'fact-0004', 'fact-0002': 'fact-0005' })
  const byTitle = Object.fromEntries(plan.addFacts.map((f) => [f.title, f]))
  assert.is(byTitle['API timeout is 30 seconds']!.supersededBy, 'fact-0005')
  assert.is(byTitle['API timeout is 60 seconds']!.supersedes, 'fact-0004')
  assert.is(byTitle['Retries are capped at 3']!.id, 'fact-0003')
  assert.is(
    byTitle['Retries are capped at 3']!.supersedes,
    undefined,
    'fact-0009 is not in the import: it would name an unrelated project fact',
  )
  assert.equal(plan.unresolved, [{ id: 'fact-0003', field: 'supersedes', ref: 'fact-0009' }])
  assert.equal(plan.updateFacts, [], 'no project fact is touched')
})

test('plan: an imported fact superseding a deduplicated project fact marks it superseded', () => {
  const project = [fact(1, 'API timeout is 30 seconds'), fact(2, 'Unrelated')]
  const incoming = [
    fact(1, 'API timeout is 30 seconds', { status: 'superseded', supersededBy: 'fact-0002' }),
    fact(2, 'API timeout is 60 seconds', { supersedes: 'fact-0001' }),
  ]
  const plan = planMerge(side(incoming), side(project))
  assert.equal(plan.duplicates, [{ id: 'fact-0001', existing: 'fact-0001' }])
  assert.equal(plan.ids, { 'fact-0002': 'fact-0003' })
  assert.equal(plan.addFacts[0]!.supersedes, 'fact-0001')
  assert.equal(plan.updateFacts, [{ ...project[0]!, status: 'superseded', supersededBy: 'fact-0003' }])
})

test('plan: a project fact absorbs one imported fact only (a history that repeats a statement stays whole)', () => {
  const project = [fact(1, 'Queue is Kafka')]
  const incoming = [
    fact(1, 'Queue is Kafka', { status: 'superseded', supersededBy: 'fact-0002' }),
    fact(2, 'Queue is SQS', { status: 'superseded', supersedes: 'fact-0001', supersededBy: 'fact-0003' }),
    fact(3, 'Queue is Kafka', { supersedes: 'fact-0002' }),
  ]
  const plan = planMerge(side(incoming), side(project))
  assert.equal(plan.duplicates, [{ id: 'fact-0001', existing: 'fact-0001' }])
  assert.equal(
    plan.addFacts.map((f) => [f.id, f.title, f.status, f.supersedes, f.supersededBy]),
    [
      ['fact-0002', 'Queue is SQS', 'superseded', 'fact-0001', 'fact-0003'],
      ['fact-0003', 'Queue is Kafka', 'active', 'fact-0002', undefined],
    ],
  )
  assert.equal(
    plan.updateFacts.map((f) => [f.id, f.status, f.supersededBy]),
    [['fact-0001', 'superseded', 'fact-0002']],
  )
})

test('plan: records identical are unchanged, new ones added, different ones conflicts (or replaced with replace)', () => {
  const project = [
    { collection: 'runbooks', key: 'deploy', value: deploy },
    { collection: 'contracts', key: 'x.v1', value: { id: 'x.v1', schema: { type: 'object' } } },
  ]
  const incoming = [
    { collection: 'runbooks', key: 'deploy', value: { body: deploy.body, title: deploy.title, slug: 'deploy' } },
    { collection: 'contracts', key: 'x.v1', value: { id: 'x.v1', schema: { type: 'string' } } },
    { collection: 'artifacts', key: 'w/a', value: { wave: 'w', agent: 'a', data: {} } },
  ]
  const merged = planMerge(side([], incoming), side([], project))
  assert.equal(
    merged.unchanged.map((r) => r.key),
    ['deploy'],
    'key order does not make a record different',
  )
  assert.equal(
    merged.addRecords.map((r) => r.key),
    ['w/a'],
  )
  assert.equal(merged.conflicts, [{ collection: 'contracts', key: 'x.v1' }])
  assert.equal(merged.replaceRecords, [])
  const replaced = planMerge(side([], incoming), side([], project), { replace: true })
  assert.equal(replaced.conflicts, [])
  assert.equal(
    replaced.replaceRecords.map((r) => r.key),
    ['x.v1'],
  )
})

test('plan: replace copies facts by id, as a copy does', () => {
  const project = [fact(1, 'A is true'), fact(2, 'B is true')]
  const incoming = [fact(1, 'A is true'), fact(2, 'B is false'), fact(3, 'B is true')]
  const plan = planMerge(side(incoming), side(project), { replace: true })
  assert.equal(plan.ids, {})
  assert.equal(plan.duplicates, [{ id: 'fact-0001', existing: 'fact-0001' }])
  assert.equal(
    plan.updateFacts.map((f) => [f.id, f.title]),
    [['fact-0002', 'B is false']],
  )
  assert.equal(
    plan.addFacts.map((f) => [f.id, f.title]),
    [['fact-0003', 'B is true']],
    'no deduplication across ids',
  )
})

test('plan: a project record that cannot be read is never written over; its fact id is taken', () => {
  const unreadable = [
    { collection: 'facts', key: 'fact-0004' },
    { collection: 'runbooks', key: 'deploy' },
  ]
  const plan = planMerge(side([fact(4, 'D is true')], [{ collection: 'runbooks', key: 'deploy', value: deploy }]), {
    facts: [],
    records: [],
    unreadable,
  })
  assert.equal(plan.ids, { 'fact-0004': 'fact-0005' })
  assert.equal(plan.conflicts, [{ collection: 'runbooks', key: 'deploy' }])
})

test('events and logs: what the project holds is not appended again', () => {
  const ev = (i: number) => ({ ts: `2026-01-01T00:00:0${i}.000Z`, kind: 'memory_write', data: { i } })
  assert.equal(newEvents([ev(1), ev(2)], [ev(1), ev(2), ev(3), ev(3)]), [ev(3), ev(3)])
  assert.equal(planLog([], ['a', 'b']), { append: ['a', 'b'], conflict: false })
  assert.equal(planLog(['a'], ['a', 'b']), { append: ['b'], conflict: false }, 'the rest of a run imported before')
  assert.equal(planLog(['a', 'b', 'c'], ['a', 'b']), { append: [], conflict: false }, 'the project is ahead')
  assert.equal(planLog(['a', 'x'], ['a', 'b']), { append: [], conflict: true })
  assert.equal(
    planLog(['a', 'x'], ['a', 'b'], true),
    { append: ['a', 'b'], conflict: false },
    'replace appends, as a copy does',
  )
})

/** A storage holding these facts, as stored (ids, statuses and references as given). */
async function storageWith(facts: Fact[]): Promise<Storage> {
  const storage = memoryStorage()
  for (const f of facts) await storage.put('facts', f.id, f)
  return storage
}

test('mergeStorage: nothing lost either side, mapping reported, idempotent on a second run', async () => {
  const source = await storageWith([
    fact(1, 'API timeout is 30 seconds', { status: 'superseded', supersededBy: 'fact-0004' }),
    fact(2, 'Queue is Kafka'),
    fact(3, 'Retries are capped at 3'),
    fact(4, 'API timeout is 60 seconds', { supersedes: 'fact-0001' }),
  ])
  await source.put('runbooks', 'deploy', deploy)
  await source.appendLog('marbles/run-1', ['step 1', 'step 2'])
  await source.put('marbles.runs', 'run-1', { status: 'done' })
  await source.appendEvent({ ts: '2026-01-01T00:00:00.000Z', kind: 'memory_write' })
  const target = await storageWith([
    fact(1, 'Handlers are idempotent'),
    fact(2, 'Queue is Kafka'),
    fact(3, 'Payments are in cents'),
  ])
  await target.put('runbooks', 'deploy', { ...deploy, body: '1. Ask first.' })

  const progress: TransferProgress[] = []
  const report = await mergeStorage(source, target, { onProgress: (p) => progress.push(p) })
  assert.equal(
    report.ids,
    { 'fact-0001': 'fact-0005', 'fact-0003': 'fact-0006' },
    'fact-0002 is the project fact-0002; fact-0004 is free',
  )
  assert.equal(report.added, { facts: 3, 'marbles.runs': 1 })
  assert.equal(report.unchanged, { facts: 1 })
  assert.equal(report.conflicts, [{ collection: 'runbooks', key: 'deploy' }])
  assert.is(report.events, 1)
  assert.is(report.logEntries, 2)
  const facts = await target.list('facts')
  assert.equal(
    facts.map((f) => [f.id, f.title, f.status, f.supersedes, f.supersededBy]),
    [
      ['fact-0001', 'Handlers are idempotent', 'active', undefined, undefined],
      ['fact-0002', 'Queue is Kafka', 'active', undefined, undefined],
      ['fact-0003', 'Payments are in cents', 'active', undefined, undefined],
      ['fact-0004', 'API timeout is 60 seconds', 'active', 'fact-0005', undefined],
      ['fact-0005', 'API timeout is 30 seconds', 'superseded', undefined, 'fact-0004'],
      ['fact-0006', 'Retries are capped at 3', 'active', undefined, undefined],
    ],
  )
  assert.is((await target.get('runbooks', 'deploy'))!.body, '1. Ask first.', 'a conflict is left as the project has it')
  assert.equal((await target.readLog('marbles/run-1', 0)).entries, ['step 1', 'step 2'])
  assert.equal(
    progress.map((p) => `${p.stage} ${p.done}/${p.total}`),
    ['facts 1/6', 'facts 2/6', 'facts 3/6', 'marbles.runs 4/6', 'logs 5/6', 'events 6/6'],
  )

  const again = await mergeStorage(source, target)
  assert.equal(again.added, {}, 'a second import adds nothing')
  assert.equal(
    again.ids,
    { 'fact-0001': 'fact-0005', 'fact-0003': 'fact-0006' },
    'each imported fact is found where the first import put it',
  )
  assert.is(again.events + again.logEntries, 0)
  assert.is((await target.list('facts')).length, 6)
  assert.is((await target.readEvents()).length, 1)
})

test('mergeStorage with replace overwrites by key', async () => {
  const source = await storageWith([fact(1, 'Queue is SQS')])
  await source.put('runbooks', 'deploy', deploy)
  const target = await storageWith([fact(1, 'Queue is Kafka')])
  await target.put('runbooks', 'deploy', { ...deploy, body: '1. Ask first.' })
  const report = await mergeStorage(source, target, { replace: true })
  assert.equal(report.replaced, { facts: 1, runbooks: 1 })
  assert.equal(report.conflicts, [])
  assert.equal(
    (await target.list('facts')).map((f) => f.title),
    ['Queue is SQS'],
  )
  assert.equal(await target.get('runbooks', 'deploy'), deploy)
})

test('mergeStorage: the merged facts read back through the kernel as one consistent history', async () => {
  const k = kernelFor()
  await k.memory.write({ title: 'API timeout is 30 seconds', body: 'Set in the gateway.', type: 'convention' })
  const source = await storageWith([
    fact(1, 'API timeout is 30 seconds', {
      body: 'Set in the gateway.',
      status: 'superseded',
      supersededBy: 'fact-0002',
    }),
    fact(2, 'API timeout is 60 seconds', { supersedes: 'fact-0001' }),
  ])
  const report = await mergeStorage(source, k.storage)
  assert.equal(report.superseded, ['fact-0001'], 'the project fact the import superseded is marked')
  const index = await k.memory.index()
  assert.match(index.text, /1\/1 facts listed/)
  assert.equal(
    (await k.memory.list({ status: 'all' })).map((f) => [f.id, f.status, f.supersedes, f.supersededBy]),
    [
      ['fact-0001', 'superseded', undefined, 'fact-0002'],
      ['fact-0002', 'active', 'fact-0001', undefined],
    ],
    'the project fact-0001 is the imported fact-0001; the imported fact-0002 supersedes it',
  )
  assert.match((await k.memory.search({ query: 'API timeout' })).text, /60 seconds/)
})

test('copyStorage reports progress over everything it writes', async () => {
  const source = await storageWith([fact(1, 'A is true'), fact(2, 'B is true')])
  await source.put('meta', 'index', '# Index')
  await source.appendEvent({ ts: '2026-01-01T00:00:00.000Z', kind: 'memory_write' })
  const progress: TransferProgress[] = []
  const report = await copyStorage(source, memoryStorage(), { onProgress: (p) => progress.push(p) })
  assert.is(report.facts, 2)
  assert.equal(
    progress.map((p) => `${p.stage} ${p.done}/${p.total}`),
    ['facts 1/4', 'facts 2/4', 'meta 3/4', 'events 4/4'],
  )
})

test.run()
