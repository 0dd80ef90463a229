import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError } from '../src/index.js'
import { kernelFor } from './helpers.js'

/*
 * A project contract's patterns run on a linear-time engine (RE2). These cases check what it
 * accepts and how it answers; the crafted-string attack itself runs through the real bin, bounded
 * by a timeout (packages/mcp/test/contract-redos.test.ts), so a regression fails rather than hangs.
 */

/** The contract's answer, or its error code and message. */
async function attempt(k: ReturnType<typeof kernelFor>, schema: string, data: unknown) {
  return k.contracts.validate({ schema, data }).then(
    (r) => ({ code: r.valid ? 'VALID' : 'INVALID', text: r.text }),
    (e: unknown) => ({ code: isFoundryError(e) ? e.code : 'THROWN', text: (e as Error).message }),
  )
}

test('patterns that backtrack exponentially elsewhere are accepted and answer correctly', async () => {
  const k = kernelFor()
  const patterns = ['^([a-z]|[a-z0-9])+$', '(a|aa)+$', '^(a|a?)+$', '^(?:a|b|ab)*c$', '^([a-zA-Z]+\\s?)+$', '(x+x+)+y']
  const properties = Object.fromEntries(patterns.map((pattern, i) => [`p${i}`, { type: 'string', pattern }]))
  await k.storage.put('contracts', 'overlap.v1', { id: 'overlap.v1', schema: { type: 'object', properties } })
  const good = await attempt(k, 'overlap.v1', {
    p0: 'abc1',
    p1: 'xaa',
    p2: 'aaa',
    p3: 'abbac',
    p4: 'Ada Lovelace',
    p5: 'xxy',
  })
  assert.is(good.code, 'VALID', good.text)
  const bad = await attempt(k, 'overlap.v1', {
    p0: `${'a'.repeat(40)}!`,
    p2: `${'a'.repeat(40)}!`,
    p3: `${'ab'.repeat(20)}`,
    p5: 'x'.repeat(40),
  })
  assert.is(bad.code, 'INVALID', bad.text)
  for (const field of ['p0', 'p2', 'p3', 'p5'])
    assert.match(bad.text, new RegExp(`- ${field} has the wrong form: expected one matching`))
  assert.match(bad.text, /expected one matching \^\(a\|a\?\)\+\$/, 'the message shows the pattern as written')
})

test('lookahead, lookbehind and backreferences are refused when the contract loads, naming the pattern', async () => {
  const k = kernelFor()
  for (const [id, pattern] of [
    ['ahead.v1', '^(?=.*\\d)[a-z\\d]+$'],
    ['behind.v1', '(?<=\\$)\\d+'],
    ['backref.v1', '^(a+)\\1$'],
  ] as const) {
    await k.storage.put('contracts', id, {
      id,
      schema: { type: 'object', properties: { code: { type: 'string', pattern } } },
    })
    const r = await attempt(k, id, { code: 'abc1' })
    assert.is(r.code, 'CORRUPT', `${id}: ${r.text}`)
    assert.match(r.text, new RegExp(`Contract ${id.replace('.', '\\.')}`))
    assert.match(r.text, /#\/properties\/code\/pattern/)
    assert.match(r.text, /lookahead, lookbehind or a backreference/)
  }
})

test('ordinary patterns validate as JavaScript reads them: classes, escapes, \\u escapes, anchors, groups', async () => {
  const k = kernelFor()
  const patterns = [
    '^[a-z]+(-[a-z0-9]+)*$',
    '^\\d{4}-\\d{2}-\\d{2}$',
    '^(ab)+$',
    '^[(+*)]+$',
    '^\\(a+\\)+$',
    '^(?:[a-z]{2}|\\d)$',
    '^(a|b)?c+$',
    '^\\u0041[\\u0042-\\u0044]$',
    '^\\p{Lu}\\p{Ll}+$',
    '^C:\\\\tmp$',
  ]
  const properties = Object.fromEntries(patterns.map((pattern, i) => [`p${i}`, { type: 'string', pattern }]))
  await k.storage.put('contracts', 'ok.v1', { id: 'ok.v1', schema: { type: 'object', properties } })
  const r = await attempt(k, 'ok.v1', {
    p0: 'kebab-case-2',
    p1: '2026-11-30',
    p2: 'abab',
    p3: '(+)',
    p4: '(aa)',
    p5: 'ab',
    p6: 'acc',
    p7: 'AC',
    p8: 'Émile',
    p9: 'C:\\tmp',
  })
  assert.is(r.code, 'VALID', r.text)
  assert.is((await attempt(k, 'ok.v1', { p0: 'Not Kebab' })).code, 'INVALID')
  assert.is((await attempt(k, 'ok.v1', { p7: 'AE' })).code, 'INVALID')
})

test('patternProperties: matching keys are checked against their schema, additionalProperties sees only the keys nothing names', async () => {
  const k = kernelFor()
  const schema = {
    type: 'object',
    properties: { name: { type: 'string' } },
    patternProperties: { '^x-[a-z]+$': { type: 'number' }, '^(a|aa)+$': { type: 'string', pattern: '^ok' } },
    additionalProperties: false,
  }
  await k.storage.put('contracts', 'keys.v1', { id: 'keys.v1', schema })
  assert.is((await attempt(k, 'keys.v1', { name: 'n', 'x-size': 3, aaaa: 'ok then' })).code, 'VALID')
  const wrongValue = await attempt(k, 'keys.v1', { 'x-size': 'three' })
  assert.is(wrongValue.code, 'INVALID')
  assert.match(wrongValue.text, /property "x-size" must be number/)
  const nested = await attempt(k, 'keys.v1', { aa: 'not ok' })
  assert.match(nested.text, /property "aa" has the wrong form: expected one matching \^ok/)
  const unknown = await attempt(k, 'keys.v1', { 'y-size': 1 })
  assert.is(unknown.code, 'INVALID')
  assert.match(unknown.text, /unknown property "y-size"/)
  const crafted = await attempt(k, 'keys.v1', { [`${'a'.repeat(40)}!`]: 'x' })
  assert.match(crafted.text, /unknown property "a{40}!"/)
})

test.run()
