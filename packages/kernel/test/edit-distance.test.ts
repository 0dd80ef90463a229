import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { boundedDistance } from '../src/edit-distance.js'

function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
  return d[a.length]![b.length]!
}

test('boundedDistance equals Levenshtein within the bound, and max+1 beyond it', () => {
  const words = [
    '',
    'a',
    'ab',
    'kubernet',
    'kubernest',
    'kuberntes',
    'deploy',
    'deplo',
    'deploi',
    'xdeploy',
    'approval',
    'aproval',
    'appoval',
    'diffus',
    'diffusion',
    'matter',
    'mattre',
    'white',
    'whtie',
    'wh',
  ]
  let checked = 0
  for (const a of words)
    for (const b of words)
      for (const max of [0, 1, 2, 3]) {
        const exact = levenshtein(a, b)
        assert.is(boundedDistance(a, b, max), exact <= max ? exact : max + 1, `${a} / ${b} / ${max}`)
        checked++
      }
  assert.is(checked, words.length * words.length * 4)
})

test.run()
