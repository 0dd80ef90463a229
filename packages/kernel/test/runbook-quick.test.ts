import { Check } from 'typebox/value'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { RunbookSchema, validator } from '../src/index.js'
import { isPlainRunbook, RUNBOOK_KEYS } from '../src/schema/runbook-quick.js'

const RUNBOOK = {
  slug: 'release-checklist',
  title: 'Release checklist',
  trigger: 'release, ship it',
  body: '1. Tag.\n2. Push.',
}

const ASTRAL = '\u{1F600}'
const strings = (max: number) => [
  '',
  'a',
  'x'.repeat(max),
  'x'.repeat(max + 1),
  ASTRAL.repeat(max),
  ASTRAL.repeat(max + 1),
  '\ud800',
]
const VARIANTS: Record<string, unknown[]> = {
  slug: ['a', 'a.b_c-d', 'A', '-a', 'a b', 'x'.repeat(80), 'x'.repeat(81), '', 7, undefined],
  title: [...strings(200), 3, null, undefined],
  trigger: [...strings(500), ['x'], undefined],
  body: ['', 'text', 1, undefined],
  extra: ['not a runbook key'],
}

test('the quick runbook check answers true only for runbooks the schema accepts, and knows its keys', () => {
  assert.ok(isPlainRunbook(RUNBOOK), 'a stored runbook as Foundry reads it')
  assert.equal([...RUNBOOK_KEYS].sort(), Object.keys(RunbookSchema.properties).sort())
  let quick = 0
  let cases = 0
  for (const [key, values] of Object.entries(VARIANTS))
    for (const value of values) {
      const runbook = { ...RUNBOOK, [key]: value }
      cases++
      if (isPlainRunbook(runbook)) {
        quick++
        assert.ok(Check(RunbookSchema, runbook), `quick said yes, the schema no: ${key} = ${JSON.stringify(value)}`)
      }
      // The validator answers as the schema does, whoever answers.
      assert.is(
        validator(RunbookSchema).check(runbook),
        Check(RunbookSchema, runbook),
        `${key} = ${JSON.stringify(value)}`,
      )
    }
  assert.ok(quick > 10 && quick < cases, `${quick} of ${cases} answered by the quick check`)
  for (const value of [null, [], 'runbook', 42, [RUNBOOK]]) assert.not.ok(isPlainRunbook(value))
})

test.run()
