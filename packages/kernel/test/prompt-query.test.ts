import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { promptQuery } from '../src/index.js'
import { PROMPT_FILLER } from '../src/prompt/prompt-query.js'

test('promptQuery keeps the topic words, once each, and drops conversational ones', () => {
  assert.is(
    promptQuery("Can you please fix the Stripe webhook? It's creating duplicate payments, duplicate!"),
    'the Stripe webhook It creating duplicate payments',
  )
  assert.is(promptQuery('how do I do this?'), 'this')
  assert.is(promptQuery('can you help me?'), '')
  assert.ok(promptQuery(Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ')).length <= 2000)
})

test('filler words are lowercase single words, as the retriever splits them', () => {
  for (const word of PROMPT_FILLER) assert.match(word, /^[a-z]+$/)
})

test.run()
