import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { lazyObject } from '../src/schema/lazy.js'

test('a lazy object is built on its first touch, once, and then acts as the object built', () => {
  let builds = 0
  const schema = lazyObject(() => {
    builds++
    return { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }
  })
  const keyed = new WeakMap([[schema, 'found']])
  assert.is(builds, 0, 'made, and a key of a WeakMap, without being built')
  assert.is(keyed.get(schema), 'found')
  assert.equal(Object.keys(schema), ['type', 'properties', 'required'])
  assert.is(builds, 1)
  assert.ok('properties' in schema && !('items' in schema))
  assert.is(schema.type, 'object')
  assert.equal(JSON.parse(JSON.stringify(schema)), {
    type: 'object',
    properties: { a: { type: 'string' } },
    required: ['a'],
  })
  assert.equal({ ...schema }.required, ['a'])
  assert.is(builds, 1, 'built once, whatever is asked after')
})

test.run()
