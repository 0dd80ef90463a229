import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError } from '../src/index.js'
import { kernelFor } from './helpers.js'

/** The contract's answer, or its error code and message, and how long it took. */
async function attempt(k: ReturnType<typeof kernelFor>, schema: string, data: unknown) {
  const started = Date.now()
  const out = await k.contracts.validate({ schema, data }).then(
    (r) => ({ code: r.valid ? 'VALID' : 'INVALID', text: r.text }),
    (e: unknown) => ({ code: isFoundryError(e) ? e.code : 'THROWN', text: (e as Error).message }),
  )
  return { ...out, ms: Date.now() - started }
}

test('a project contract with a catastrophic pattern is refused at load, with the pattern named, before any input is matched', async () => {
  const k = kernelFor()
  const evil = '^([a-zA-Z]+\\s?)+$'
  await k.storage.put('contracts', 'name.v1', { id: 'name.v1', schema: { type: 'object', properties: { name: { type: 'string', pattern: evil } } } })
  await k.storage.put('contracts', 'keys.v1', { id: 'keys.v1', schema: { type: 'object', patternProperties: { '^(a*)*$': { type: 'string' } } } })
  await k.storage.put('contracts', 'alt.v1', { id: 'alt.v1', schema: { type: 'object', properties: { list: { type: 'array', items: { type: 'string', pattern: '(x+x+)+y' } } } } })
  for (const [id, data] of [
    ['name.v1', { name: `${'a'.repeat(25)}!` }],
    ['keys.v1', { [`${'a'.repeat(25)}!`]: 'x' }],
    ['alt.v1', { list: [`${'x'.repeat(25)}`] }],
  ] as const) {
    const r = await attempt(k, id, data)
    assert.is(r.code, 'CORRUPT', `${id}: ${r.code} after ${r.ms} ms: ${r.text}`)
    assert.match(r.text, /nested quantifier/, r.text)
    assert.match(r.text, new RegExp(`Contract ${id.replace('.', '\\.')}`))
    assert.ok(r.ms < 200, `${id} answered in ${r.ms} ms`)
  }
})

test('ordinary patterns still validate: quantifiers side by side, escaped and in classes', async () => {
  const k = kernelFor()
  const patterns = ['^[a-z]+(-[a-z0-9]+)*$', '^\\d{4}-\\d{2}-\\d{2}$', '^(ab)+$', '^[(+*)]+$', '^\\(a+\\)+$', '^(?:[a-z]{2}|\\d)$', '^(a|b)?c+$']
  const properties = Object.fromEntries(patterns.map((pattern, i) => [`p${i}`, { type: 'string', pattern }]))
  await k.storage.put('contracts', 'ok.v1', { id: 'ok.v1', schema: { type: 'object', properties } })
  const r = await attempt(k, 'ok.v1', { p0: 'kebab-case-2', p1: '2026-11-30', p2: 'abab', p3: '(+)', p4: '(aa)', p5: 'ab', p6: 'acc' })
  assert.is(r.code, 'VALID', r.text)
  assert.is((await attempt(k, 'ok.v1', { p0: 'Not Kebab' })).code, 'INVALID')
})

test.run()
