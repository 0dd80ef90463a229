import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isoTime, monotonicMs } from '../src/clock.js'

test('the clock never goes back, and counts milliseconds', async () => {
  let last = monotonicMs()
  for (let i = 0; i < 10_000; i++) {
    const t = monotonicMs()
    assert.ok(t >= last, `${t} after ${last}`)
    last = t
  }
  // Each reading bracketed by Date's: the interval must lie between the inner and outer wall intervals (±1 ms of Date's resolution).
  const before = Date.now()
  const from = monotonicMs()
  const after = Date.now()
  await new Promise((resolve) => setTimeout(resolve, 30))
  const before2 = Date.now()
  const to = monotonicMs()
  const after2 = Date.now()
  const elapsed = to - from
  assert.ok(
    elapsed >= before2 - after - 1 && elapsed <= after2 - before + 1,
    `${elapsed} ms, Date: ${before2 - after}–${after2 - before} ms`,
  )
})

test('isoTime writes what toISOString writes, for any moment, and refuses what it refuses', () => {
  const moments = [0, 1, -1, 951_782_400_000, 1_767_225_599_999, 253_402_300_799_999, -62_167_219_200_000]
  for (let i = 0; i < 2000; i++) moments.push(Math.floor((Math.random() * 2 - 1) * 8.64e15))
  for (const ms of moments) {
    const date = new Date(ms)
    assert.is(isoTime(date), date.toISOString(), String(ms))
  }
  assert.throws(() => isoTime(new Date(Number.NaN)), RangeError)
})

test.run()
