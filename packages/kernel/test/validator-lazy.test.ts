import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError, validator } from '../src/index.js'
import { Check } from 'typebox/value'
import { bm25Descriptor } from '../src/bm25/descriptor.js'
import { FactInputSchema } from '../src/schema/fact.js'
import { INTERPRETED_CHECKS } from '../src/schema/validate.js'

const good = { title: 'Money is stored in integer cents', body: 'All amounts are integer cents.', type: 'convention' }
const bad = { title: '', body: 'x', type: 'folklore', scope: 'team:x', extra: 1 }

/** What a validator answers for the good and the bad input: check, problems, and parse's error. */
function answers(v: ReturnType<typeof validator>) {
  let error = ''
  try {
    v.parse(bad, 'memory_write input')
  } catch (e) {
    assert.ok(isFoundryError(e, 'INVALID_INPUT'))
    error = (e as Error).message
  }
  return {
    good: v.check(good),
    bad: v.check(bad),
    problems: v.problems(bad),
    none: v.problems(good),
    error,
    parsed: v.parse(good) === good,
  }
}

test('a validator answers the same while it walks its schema and once it is compiled', () => {
  const v = validator(FactInputSchema)
  const first = answers(v) // the interpreter (fewer checks than INTERPRETED_CHECKS so far)
  for (let i = 0; i < INTERPRETED_CHECKS * 2; i++) v.check(good)
  const later = answers(v) // compiled by now
  assert.equal(later, first)
  assert.equal(first.good, true)
  assert.equal(first.bad, false)
  assert.ok(first.problems.length >= 3, first.problems.join('; '))
  assert.equal(first.none, [])
  assert.match(first.error, /^Invalid memory_write input: /)
})

test('`{}` passes an object schema that requires nothing at once, and every other schema decides as TypeBox does', () => {
  const schemas: Array<[string, object, boolean]> = [
    ['an object schema', { type: 'object' }, true],
    [
      'optional properties only, no others',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      true,
    ],
    ['nothing required', { type: 'object', properties: { a: { type: 'string' } }, required: [] }, true],
    ["the bm25 retriever's options", bm25Descriptor.options as object, true],
    ['a required property', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, false],
    ['at least one property', { type: 'object', minProperties: 1 }, false],
    ['not an object', { type: 'string' }, false],
    ['a combinator', { type: 'object', not: { type: 'object' } }, false],
  ]
  for (const [what, schema, accepts] of schemas) {
    assert.is(Check(schema as never, {}), accepts, `${what}: TypeBox's own answer`)
    assert.is(validator(schema).check({}), accepts, what)
    assert.is(validator(schema).problems({}).length === 0, accepts, `${what}: problems`)
  }
  // Only a plain empty object: an array, null or an object with a key goes to the schema.
  assert.not.ok(validator({ type: 'object' }).check([]))
  assert.not.ok(validator({ type: 'object' }).check(null))
  assert.not.ok(validator({ type: 'object', additionalProperties: false }).check({ a: 1 }))
})

test.run()
