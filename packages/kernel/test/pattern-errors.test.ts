import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { FactSchema, isFoundryError, validator } from '../src/index.js'
import { kernelFor } from './helpers.js'

/** The message of the INVALID_INPUT `promise` rejects with. */
async function message(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    assert.ok(isFoundryError(error, 'INVALID_INPUT'), String(error))
    return (error as Error).message
  }
  throw new Error('expected a rejection')
}

const base = { title: 'Money is stored in integer cents', body: 'All amounts are integer cents.', type: 'convention' }
const REGEX = /\^|\$|\[|\\/ // what a regular expression would show

test('a bad source names the accepted forms in words, not a regular expression', async () => {
  const text = await message(kernelFor().memory.write({ ...base, source: 'slack' }))
  assert.is(
    text,
    'Invalid memory_write input: source has the wrong form: use adr-<number> (e.g. adr-0007), conversation, code or external:<url>',
  )
  for (const source of ['adr-0007', 'adr-12', 'conversation', 'code', 'external:https://example.com/adr'])
    await kernelFor().memory.write({ ...base, source })
})

test('every pattern of the fact and runbook inputs is worded: scope, tags, expires, supersedes, slug', async () => {
  const k = kernelFor()
  const cases: Array<[Promise<unknown>, RegExp]> = [
    [
      k.memory.write({ ...base, scope: 'team:x' }),
      /scope has the wrong form: use project, module:<name> or vertical:<name>/,
    ],
    [
      k.memory.write({ ...base, tags: ['two words'] }),
      /tags\[0\] has the wrong form: use one word, without spaces or commas/,
    ],
    [k.memory.write({ ...base, expires: 'next week' }), /expires has the wrong form: use a date as YYYY-MM-DD/],
    [
      k.memory.write({ ...base, supersedes: 'fact-12' }),
      /supersedes has the wrong form: use a fact id, fact- and 4 to 15 digits \(e\.g\. fact-0012\)/,
    ],
    [
      k.memory.search({ query: 'cents', scope: 'billing' }),
      /scope has the wrong form: use project, module:<name> or vertical:<name>/,
    ],
    [
      k.runbooks.put({ slug: 'Deploy Now', title: 'Deploy', body: 'Steps.' }),
      /slug has the wrong form: use lowercase letters, digits, \. _ and -/,
    ],
  ]
  for (const [promise, expected] of cases) {
    const text = await message(promise)
    assert.match(text, expected)
    assert.not.match(text.slice(text.indexOf('wrong form')), REGEX, `no regular expression in: ${text}`)
  }
})

test('a stored fact read back with a bad field is worded the same way', () => {
  const problems = validator(FactSchema).problems({
    id: 'fact-1',
    title: 't',
    body: 'b',
    type: 'domain',
    scope: 'project',
    tags: [],
    confidence: 'high',
    source: 'wiki',
    created: '2026-11-30T12:00:00Z',
    status: 'active',
  })
  assert.equal(problems, [
    'id has the wrong form: use a fact id, fact- and 4 to 15 digits (e.g. fact-0012)',
    'source has the wrong form: use adr-<number> (e.g. adr-0007), conversation, code or external:<url>',
  ])
})

test("a project contract's own pattern is shown as written: its author needs it", () => {
  const problems = validator({
    type: 'object',
    properties: { ticket: { type: 'string', pattern: '^[A-Z]+-[0-9]+$' } },
  }).problems({ ticket: 'x' })
  assert.equal(problems, ['ticket has the wrong form: expected one matching ^[A-Z]+-[0-9]+$'])
})

test.run()
