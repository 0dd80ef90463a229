import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { collectGarbage } from '../src/collect-garbage.js'

test('collectGarbage frees what nothing reaches any more, in a process started without --expose-gc', () => {
  assert.is((globalThis as { gc?: unknown }).gc, undefined, 'the test runs without --expose-gc')
  collectGarbage()
  const before = process.memoryUsage().heapUsed
  let garbage: string[] | undefined = Array.from({ length: 200_000 }, (_, i) => `unreachable ${i} `.repeat(4))
  const held = process.memoryUsage().heapUsed
  assert.ok(held - before > 20_000_000, `${held - before} bytes allocated`)
  garbage = undefined
  assert.is(garbage, undefined)
  assert.ok(collectGarbage(), 'collected')
  const after = process.memoryUsage().heapUsed
  assert.ok(after - before < (held - before) / 4, `${after - before} bytes still held of ${held - before}`)
})

test.run()
