import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { JSON_MAX_DEPTH, measureJson } from '../src/index.js'
import { ARTIFACT_MAX_BYTES } from '../src/limits.js'
import { assertJsonWithin } from '../src/limits.js'
import { kernelFor } from './helpers.js'

test('measureJson is the exact UTF-8 size of the pretty JSON, without building it', () => {
  const values: unknown[] = [
    {},
    [],
    0,
    -1.5,
    'é"\n',
    null,
    true,
    { a: 1, b: [1, 2, { c: 'x' }], d: {}, e: [] },
    [[[]]],
    { ké: [null, 'a\nb', '😀'] },
  ]
  for (const value of values)
    assert.is(
      measureJson(value).bytes,
      new TextEncoder().encode(JSON.stringify(value, null, 2)).length,
      JSON.stringify(value),
    )
})

test('measureJson stops at the depth or size limit (a 10 000-deep value costs a short walk)', () => {
  let deep: unknown = 1
  for (let i = 0; i < 10_000; i++) deep = [deep]
  assert.equal(measureJson(deep), { bytes: Number.POSITIVE_INFINITY, depth: JSON_MAX_DEPTH + 1 })
  assert.is(measureJson({ s: 'x'.repeat(100) }, 50).bytes, Number.POSITIVE_INFINITY)
})

test('blackboard.write refuses data nested past 32 levels or over 1 MiB pretty, before the contract and before any write', async () => {
  const k = kernelFor()
  await k.storage.put('contracts', 'any.v1', { id: 'any.v1', schema: { type: 'object' } })
  let deep: unknown = 1
  for (let i = 0; i < 32; i++) deep = [deep]
  const fail = async (data: Record<string, unknown>) =>
    k.blackboard.write({ wave: 'w', agent: 'a', schema: 'any.v1', data }).then(
      () => 'written',
      (e: Error) => e.message,
    )
  assert.is(
    await fail({ deep }),
    'blackboard_write data is nested more than 32 levels deep: flatten it (nothing was written)',
  )
  assert.is(
    await fail({ blob: 'x'.repeat(ARTIFACT_MAX_BYTES) }),
    'blackboard_write data is over 1 MiB as stored (pretty JSON): split it into smaller artifacts (nothing was written)',
  )
  assert.equal(await k.storage.list('artifacts'), [])
  assert.is(await fail({ blob: 'x'.repeat(ARTIFACT_MAX_BYTES - 100) }), 'written')
  assert.throws(() => assertJsonWithin({ a: 1 }, 'f', 5), /f is over 5 bytes as stored/)
})

test.run()
