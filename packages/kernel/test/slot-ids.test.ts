import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { PackedStrings } from '../src/bm25/packed-strings.js'
import { SlotIds } from '../src/bm25/slot-ids.js'

/** `ids` packed as a snapshot keeps them: one text, offsets. */
function packed(ids: string[]): PackedStrings {
  const at = [0]
  for (const id of ids) at.push(at[at.length - 1]! + id.length)
  const words = { length: at.length, get: (i: number) => at[i]!, toArray: () => new Uint32Array(at) }
  return new PackedStrings(ids.join(''), words)
}

test('SlotIds: a snapshot’s ids and those added since, found by id through removals, new versions and growth', () => {
  const restored = Array.from({ length: 500 }, (_, i) => `fact-${i}`)
  const ids = new SlotIds(packed(restored))
  assert.is(ids.length, 500)
  assert.is(ids.slotOf('fact-0'), 0)
  assert.is(ids.slotOf('fact-499'), 499)
  assert.is(ids.slotOf('fact-500'), undefined)
  // A new version of an id: the old slot forgotten, the id on a new slot.
  ids.forget('fact-7')
  assert.is(ids.slotOf('fact-7'), undefined)
  assert.is(ids.get(7), 'fact-7', 'a dead slot keeps its id')
  assert.is(ids.push('fact-7'), 500)
  assert.is(ids.slotOf('fact-7'), 500)
  // Enough new ids to grow the table several times, with removals between.
  for (let i = 500; i < 5000; i++) {
    const slot = ids.push(`new-${i}`)
    if (i % 3 === 0) ids.forget(`new-${i}`)
    assert.is(ids.get(slot), `new-${i}`)
  }
  for (let i = 500; i < 5000; i++) assert.is(ids.slotOf(`new-${i}`), i % 3 === 0 ? undefined : i + 1, `new-${i}`)
  for (let i = 0; i < 500; i++) assert.is(ids.slotOf(`fact-${i}`), i === 7 ? 500 : i)
  ids.replace(['b', 'a'])
  assert.is(ids.length, 2)
  assert.is(ids.slotOf('a'), 1)
  assert.is(ids.slotOf('fact-0'), undefined)
})

test.run()
