import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createFactSet } from '../src/memory/fact-set.js'
import { compareForIndex } from '../src/memory/facts.js'
import type { Fact } from '../src/index.js'
import { sampleFact } from '../src/testing/index.js'

const types = ['decision', 'constraint', 'glossary'] as const
const confidences = ['high', 'medium', 'low'] as const
const make = (n: number, over: Partial<Fact> = {}): Fact =>
  ({
    ...sampleFact(n),
    expires: undefined,
    supersedes: undefined,
    title: `Subject ${n} words`,
    type: types[n % 3],
    confidence: confidences[(n * 7) % 3],
    created: new Date(Date.UTC(2026, 0, 1, 0, 0, (n * 37) % 1000)).toISOString(),
    ...over,
  }) as Fact

test('bulk load and one-by-one changes keep the same index order as a full sort', () => {
  const facts = Array.from({ length: 400 }, (_, i) => make(i + 1))
  const bulk = createFactSet(facts)
  const sorted = [...facts].sort(compareForIndex).map((f) => f.id)
  assert.equal(
    [...bulk.ordered()].map((f) => f.id),
    sorted,
  )
  const incremental = createFactSet()
  for (const f of facts) incremental.set(f)
  assert.equal(
    [...incremental.ordered()].map((f) => f.id),
    sorted,
  )
  // supersede one, change the confidence of another, delete a third
  incremental.set({ ...facts[10]!, status: 'superseded', supersededBy: 'fact-0999' })
  incremental.set({ ...facts[20]!, confidence: 'high' })
  incremental.delete(facts[30]!.id)
  const expected = facts
    .filter((_, i) => i !== 10 && i !== 30)
    .map((f, _i) => (f.id === facts[20]!.id ? { ...f, confidence: 'high' as const } : f))
    .sort(compareForIndex)
    .map((f) => f.id)
  assert.equal(
    [...incremental.ordered()].map((f) => f.id),
    expected,
  )
  assert.is(incremental.size, 399)
  assert.is(incremental.maxNumber, 400)
})

test('duplicates and subject candidates come from the maps, active facts only', () => {
  const set = createFactSet([
    make(1, { title: 'API timeout is 30 seconds', type: 'constraint', scope: 'project' }),
    make(2, { title: 'Uploads limited', type: 'constraint', scope: 'project' }),
  ])
  assert.is(
    set.findDuplicate(
      { type: 'constraint', scope: 'project', title: 'api timeout is 30 seconds.', body: sampleFact(1).body },
      '2026-01-01',
    )?.id,
    'fact-0001',
  )
  assert.equal(
    set.subjectCandidates('constraint', 'project', new Set(['api', 'timeout']), '2026-01-01').map((f) => f.id),
    ['fact-0001'],
  )
  assert.equal(set.subjectCandidates('decision', 'project', new Set(['api']), '2026-01-01'), [], 'other type')
  set.set({ ...set.get('fact-0001')!, status: 'superseded' })
  assert.equal(
    set.subjectCandidates('constraint', 'project', new Set(['api']), '2026-01-01'),
    [],
    'superseded facts are no candidates',
  )
})

test('activeCount discounts facts past their expiry', () => {
  const set = createFactSet([make(1, { expires: '2026-06-01' }), make(2), make(3, { status: 'superseded' })])
  assert.is(set.activeCount('2026-06-01'), 2)
  assert.is(set.activeCount('2026-06-02'), 1)
})

test.run()
