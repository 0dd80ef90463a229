import { Check } from 'typebox/value'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { validator } from '../src/index.js'
import { SearchInputSchema } from '../src/schema/inputs.js'
import { isPlainSearchInput } from '../src/schema/input-quick.js'

const ASTRAL = '\u{1F600}'
/** Values around every bound SearchInputSchema sets, and of the wrong kind. */
const VARIANTS: Record<string, unknown[]> = {
  query: [
    '',
    'a',
    'x'.repeat(2000),
    'x'.repeat(2001),
    ASTRAL,
    ASTRAL.repeat(1000),
    ASTRAL.repeat(2001),
    '\ud800',
    7,
    null,
    ['q'],
  ],
  type: ['decision', 'glossary', 'Decision', '', 1, null, undefined],
  scope: [
    'project',
    'module:billing',
    'vertical:a/b@c',
    'module:',
    'module:a b',
    `module:${ASTRAL}`,
    'projects',
    `module:${'x'.repeat(193)}`,
    `module:${'x'.repeat(194)}`,
    '',
    3,
    undefined,
  ],
  limit: [1, 8, 25, 0, 26, -1, 2.5, '8', Number.NaN, Number.POSITIVE_INFINITY, null, undefined],
  extra: ['not an argument'],
}

test('the quick search check answers true only for arguments the schema accepts, and true for the plain ones', () => {
  const schema = SearchInputSchema
  assert.ok(isPlainSearchInput({ query: 'why postgres' }), 'a query alone')
  assert.ok(isPlainSearchInput({ query: 'q', type: 'decision', scope: 'module:billing', limit: 25 }), 'every argument')
  let quick = 0
  let cases = 0
  for (const [key, values] of Object.entries(VARIANTS))
    for (const value of values)
      for (const base of [{ query: 'why postgres' }, { query: 'q', type: 'risk', scope: 'project', limit: 3 }]) {
        for (const input of [
          { ...base, [key]: value },
          Object.fromEntries(Object.entries(base).filter(([k]) => k !== key)),
        ]) {
          cases++
          if (!isPlainSearchInput(input)) continue
          quick++
          assert.ok(Check(schema, input), `quick said yes, the schema no: ${key} = ${JSON.stringify(value)}`)
        }
      }
  assert.ok(quick > 20 && quick < cases, `${quick} of ${cases} answered by the quick check`)
  for (const value of [null, [], 'query', 42, [{ query: 'q' }], Object.create(null)])
    assert.not.ok(isPlainSearchInput(value))
})

test("a search's validator gives the schema's answers and problems, with or without the quick check", () => {
  const schema = SearchInputSchema
  const check = validator(schema)
  for (const [key, values] of Object.entries(VARIANTS))
    for (const value of values) {
      const input = { query: 'why postgres', [key]: value }
      assert.is(check.check(input), Check(schema, input), `${key} = ${JSON.stringify(value)}`)
      if (!Check(schema, input)) assert.ok(check.problems(input).length > 0)
    }
  assert.throws(() => check.parse({ query: '' }, 'memory_search input'), /query must not be empty/)
})

test.run()
