import { Check } from 'typebox/value'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { FactSchema, validator } from '../src/index.js'
import { FactInputSchema } from '../src/schema/fact.js'
import { FACT_INPUT_KEYS, FACT_KEYS, isPlainFact, isPlainFactInput } from '../src/schema/fact-quick.js'

const FACT = {
  id: 'fact-0042',
  title: 'Invoices are rounded per line',
  body: 'Each invoice line is rounded on its own.\nWhy: auditors asked.\nHow to apply: round before summing.',
  type: 'decision',
  scope: 'module:billing',
  tags: ['billing', 'vat'],
  confidence: 'high',
  source: 'adr-0007',
  created: '2026-01-02T03:04:05.000Z',
  status: 'active',
}

/** Values around every bound the schema sets, and of the wrong kind. */
const ASTRAL = '\u{1F600}'
const strings = (max: number) => [
  '',
  'a',
  'x'.repeat(max),
  'x'.repeat(max + 1),
  ASTRAL.repeat(max),
  ASTRAL.repeat(max + 1),
  `${ASTRAL}`,
  '\ud800',
  'two words',
  'a,b',
]
const VARIANTS: Record<string, unknown[]> = {
  id: ['fact-0001', 'fact-1', 'fact-0000000000000001', 'fact-0001 ', 'Fact-0001', 7, undefined],
  title: [...strings(80), 3, null],
  body: [...strings(4000), ['x']],
  type: ['decision', 'glossary', 'Decision', '', 1],
  scope: ['project', 'vertical:a/b@c', 'module:', 'module:a b', `module:${ASTRAL}`, 'projects'],
  tags: [
    [],
    ['a'],
    Array(20).fill('t'),
    Array(21).fill('t'),
    [''],
    ['a b'],
    ['a,b'],
    ['x'.repeat(41)],
    [ASTRAL.repeat(40)],
    [ASTRAL.repeat(41)],
    [1],
    'a',
    [undefined],
  ],
  confidence: ['low', 'medium', 'HIGH', undefined],
  source: ['conversation', 'code', 'external:https://x.y/z', 'external:', 'external:a b', 'adr-1234567', 'adr-123456'],
  author: [...strings(64), undefined],
  created: [
    '2026-01-02',
    '2026-01-0',
    `${ASTRAL.repeat(5)}`,
    `${ASTRAL.repeat(10)}`,
    '2026-01-02T03:04:05.000Z',
    20260102,
  ],
  expires: ['2026-01-02', '2026-1-2', '2026-01-02T00:00:00Z', undefined],
  supersedes: ['fact-0001', 'fact-01', undefined],
  supersededBy: ['fact-0001', 'x'],
  status: ['active', 'superseded', 'forgotten', 'expired'],
  forgotten: ['2026-01-02T03:04:05.000Z', '2026-01-0', '1234567890'],
  forgottenReason: [...strings(500)],
  extra: ['not a fact key'],
}

test('the quick fact check answers true only for facts the schema accepts, and true for a stored fact as written', () => {
  assert.ok(isPlainFact(FACT), 'a stored fact as Foundry writes it')
  let quick = 0
  let cases = 0
  for (const [key, values] of Object.entries(VARIANTS))
    for (const value of values) {
      for (const fact of [
        { ...FACT, [key]: value },
        Object.fromEntries(Object.entries(FACT).filter(([k]) => k !== key)),
      ]) {
        cases++
        if (!isPlainFact(fact)) continue
        quick++
        assert.ok(Check(FactSchema, fact), `quick said yes, the schema no: ${key} = ${JSON.stringify(value)}`)
      }
    }
  assert.ok(quick > 40 && quick < cases, `${quick} of ${cases} answered by the quick check`)
  for (const value of [null, [], 'fact', 42, [FACT]]) assert.not.ok(isPlainFact(value))
})

test("a fact's validator gives the schema's answers and problems, with or without the quick check", () => {
  const check = validator(FactSchema)
  for (const [key, values] of Object.entries(VARIANTS))
    for (const value of values) {
      const fact = { ...FACT, [key]: value }
      assert.is(check.check(fact), Check(FactSchema, fact), `${key} = ${JSON.stringify(value)}`)
      if (!Check(FactSchema, fact)) assert.ok(check.problems(fact).length > 0)
    }
})

test('the quick check knows the keys the schema lists, no more and no fewer', () => {
  assert.equal([...FACT_KEYS].sort(), Object.keys(FactSchema.properties).sort())
})

test('the fact schemas stand in until first touched, then act as TypeBox built them', () => {
  // Built as TypeBox builds them: its own check, JSON, keys and `in` see the built object.
  assert.ok(Check(FactSchema, FACT))
  assert.not.ok(Check(FactSchema, { ...FACT, extra: 1 }))
  assert.equal(JSON.parse(JSON.stringify(FactSchema)).required.sort(), [
    'body',
    'confidence',
    'created',
    'id',
    'scope',
    'source',
    'status',
    'tags',
    'title',
    'type',
  ])
  assert.ok('properties' in FactSchema)
})

const INPUT = {
  title: FACT.title,
  body: FACT.body,
  type: 'decision',
  scope: 'module:billing',
  tags: ['billing'],
  confidence: 'high',
  source: 'adr-0007',
  expires: '2027-01-02',
  supersedes: 'fact-0009',
  supersede: false,
}
const INPUT_VARIANTS: Record<string, unknown[]> = {
  title: VARIANTS.title!,
  body: VARIANTS.body!,
  type: VARIANTS.type!,
  scope: [...VARIANTS.scope!, `module:${'x'.repeat(193)}`, `module:${'x'.repeat(194)}`, undefined],
  tags: VARIANTS.tags!,
  confidence: VARIANTS.confidence!,
  source: [...VARIANTS.source!, `external:${'x'.repeat(491)}`, `external:${'x'.repeat(492)}`, undefined],
  expires: VARIANTS.expires!,
  supersedes: VARIANTS.supersedes!,
  supersede: [true, false, 'false', 0, undefined],
  id: ['fact-0001'],
  created: ['2026-01-02T03:04:05.000Z'],
}

test("the quick memory_write input check answers true only for inputs the schema accepts, and the validator keeps the schema's answers", () => {
  const check = validator(FactInputSchema)
  assert.ok(isPlainFactInput(INPUT), 'an input with every field')
  assert.ok(isPlainFactInput({ title: 'T', body: 'B', type: 'risk' }), 'an input with the required fields only')
  let quick = 0
  let cases = 0
  for (const [key, values] of Object.entries(INPUT_VARIANTS))
    for (const value of values)
      for (const input of [
        { ...INPUT, [key]: value },
        Object.fromEntries(Object.entries(INPUT).filter(([k]) => k !== key)),
      ]) {
        cases++
        assert.is(check.check(input), Check(FactInputSchema, input), `${key} = ${JSON.stringify(value)}`)
        if (!isPlainFactInput(input)) continue
        quick++
        assert.ok(Check(FactInputSchema, input), `quick said yes, the schema no: ${key} = ${JSON.stringify(value)}`)
      }
  assert.ok(quick > 40 && quick < cases, `${quick} of ${cases} answered by the quick check`)
  for (const value of [null, [], 'input', 42, [INPUT]]) assert.not.ok(isPlainFactInput(value))
  assert.equal([...FACT_INPUT_KEYS].sort(), Object.keys(FactInputSchema.properties).sort())
})

test.run()
