import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  DEFAULT_CONFIG,
  isFoundryError,
  memoryStorage,
  renderFactBlock,
  resolveConfig,
  type ConfigFile,
  type Storage,
} from '../src/index.js'
import { distractors } from '../src/testing/index.js'
import { kernelFor } from './helpers.js'

/**
 * Thirty unrelated conventions and two payment facts holding `charged` once each: `chart` reaches
 * them only as a typo of `charg`, at relevance 0.31 and 0.33 (the issue's `kubernetes helm chart`).
 */
async function paymentsMemory(): Promise<Storage> {
  const storage = memoryStorage()
  const k = kernelFor({}, { storage })
  for (const [i, d] of distractors(30).entries())
    await k.memory.write({ title: d.title, body: `${d.body} Entry ${i}.`, type: 'convention', scope: `module:m${i}` })
  await k.memory.write({
    title: 'Payments use Stripe',
    body: 'The customer is charged when the order ships.',
    type: 'convention',
  })
  await k.memory.write({
    title: 'Refunds go to the original payment method',
    body: 'A card charged in error is refunded within five days.',
    type: 'constraint',
  })
  return storage
}

const line = (n: number, floor: number) =>
  `(${n} weaker match${n === 1 ? '' : 'es'} left out, below relevance ${floor})`
/** Both floors off. */
const OFF = { memoryRetrieval: { minRelevance: 0, minRelevanceRatio: 0 } }

test('the default floor is 0.5 of relevance or half the top hit, whichever is higher; the best hit whole', () => {
  assert.equal(DEFAULT_CONFIG.memoryRetrieval, {
    maxFacts: 8,
    minRelevance: 0.5,
    minRelevanceRatio: 0.5,
    wholeFacts: 1,
  })
})

test('every hit under the floor: the seed no-hit text, then one line counting them; dropped in the result', async () => {
  const storage = await paymentsMemory()
  const off = await kernelFor(OFF, { storage }).memory.search({ query: 'kubernetes helm chart' })
  assert.equal(
    off.hits.map((h) => h.fact.id),
    ['fact-0031', 'fact-0032'],
    'without the floor: the two payment facts',
  )
  assert.ok(
    off.hits.every((h) => h.relevance < 0.5),
    off.hits.map((h) => h.relevance).join(' '),
  )

  const r = await kernelFor({}, { storage }).memory.search({ query: 'kubernetes helm chart' })
  assert.is(r.text, `No stored fact matches "kubernetes helm chart". Memory holds 32 active facts.\n${line(2, 0.5)}`)
  assert.equal(r.hits, [])
  assert.is(r.active, 32)
  assert.is(r.dropped, 2)
})

test('some hits under the floor: the kept blocks exactly as the seed shows them, then the line', async () => {
  const storage = await paymentsMemory()
  const k = kernelFor({}, { storage })
  const r = await k.memory.search({ query: 'refund chart' })
  assert.equal(
    r.hits.map((h) => h.fact.id),
    ['fact-0032'],
  )
  assert.is(r.dropped, 1)
  assert.is(r.active, undefined)
  const floor = Math.max(0.5, 0.5 * r.hits[0]!.relevance)
  assert.is(r.text, `${renderFactBlock(await k.memory.get('fact-0032'))}\n\n${line(1, Number(floor.toFixed(2)))}`)
})

test('nothing under the floor: no line and no dropped count', async () => {
  const k = kernelFor({}, { storage: await paymentsMemory() })
  const r = await k.memory.search({ query: 'stripe' })
  assert.ok(r.hits.length >= 1)
  assert.is(r.dropped, undefined)
  assert.not.match(r.text, /weaker match/)
  const none = await k.memory.search({ query: 'terraform' })
  assert.is(
    none.text,
    'No stored fact matches "terraform". Memory holds 32 active facts.',
    'no match at all: the seed text alone',
  )
  assert.is(none.dropped, undefined)
})

test('a fact holding every word of the query stays, however common its words; one holding only some goes', async () => {
  const k = kernelFor()
  for (const name of ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'])
    await k.memory.write({
      title: `Invoices rule ${name} applies`,
      body: 'Invoices are special.',
      type: 'convention',
      scope: `module:${name}`,
    })
  const every = await k.memory.search({ query: 'invoice rules' })
  assert.is(every.hits.length, 6, 'all six hold both words (stemmed)')
  assert.ok(
    every.hits.every((h) => h.relevance < 0.5),
    'words every fact holds weigh little',
  )
  assert.is(every.dropped, undefined)
  const some = await k.memory.search({ query: 'invoices helmets' })
  assert.is(some.text, `No stored fact matches "invoices helmets". Memory holds 6 active facts.\n${line(6, 0.5)}`)
})

test('minRelevance 0 and minRelevanceRatio 0 turn the floor off', async () => {
  const r = await kernelFor(OFF, { storage: await paymentsMemory() }).memory.search({ query: 'kubernetes helm chart' })
  assert.is(r.hits.length, 2)
  assert.is(r.dropped, undefined)
  assert.not.match(r.text, /weaker match|No stored fact/)
})

test('minRelevanceRatio leaves out hits below that share of the top one; the line names the higher floor', async () => {
  const storage = await paymentsMemory()
  const all = (await kernelFor(OFF, { storage }).memory.search({ query: 'payments charts' })).hits
  const floor = 0.7 * all[0]!.relevance
  const kept = all.filter((h) => h.relevance >= floor)
  assert.ok(
    floor > 0.5 && kept.length >= 1 && all.some((h) => h.relevance >= 0.5 && h.relevance < floor),
    'the ratio cuts above the absolute floor',
  )
  const r = await kernelFor({ memoryRetrieval: { minRelevanceRatio: 0.7 } }, { storage }).memory.search({
    query: 'payments charts',
  })
  assert.equal(
    r.hits.map((h) => h.fact.id),
    kept.map((h) => h.fact.id),
  )
  assert.is(r.dropped, all.length - kept.length)
  assert.ok(r.text.endsWith(`\n\n${line(all.length - kept.length, Number(floor.toFixed(2)))}`), r.text)
})

test('the floor cuts within the limit: dropped counts the hits the limit would have returned', async () => {
  const storage = await paymentsMemory()
  const all = (await kernelFor(OFF, { storage }).memory.search({ query: 'payments charts', limit: 3 })).hits
  const r = await kernelFor(
    { memoryRetrieval: { minRelevance: 0.7, minRelevanceRatio: 0 } },
    { storage },
  ).memory.search({ query: 'payments charts', limit: 3 })
  assert.is(all.length, 3)
  assert.is(r.hits.length + r.dropped!, 3)
})

test('config: minRelevance is 0 or more, minRelevanceRatio between 0 and 1, wholeFacts 1 to 25, each named when wrong', () => {
  assert.equal(resolveConfig({ memoryRetrieval: { minRelevance: 1.5 } }).memoryRetrieval, {
    maxFacts: 8,
    minRelevance: 1.5,
    minRelevanceRatio: 0.5,
    wholeFacts: 1,
  })
  for (const [file, message] of [
    [{ memoryRetrieval: { minRelevance: -1 } }, /memoryRetrieval\.minRelevance must be >= 0/],
    [{ memoryRetrieval: { minRelevanceRatio: 2 } }, /memoryRetrieval\.minRelevanceRatio must be <= 1/],
    [{ memoryRetrieval: { wholeFacts: 0 } }, /memoryRetrieval\.wholeFacts must be >= 1/],
  ] as Array<[ConfigFile, RegExp]>) {
    try {
      resolveConfig(file)
      assert.unreachable(JSON.stringify(file))
    } catch (error) {
      assert.ok(isFoundryError(error, 'INVALID_INPUT'), String(error))
      assert.match((error as Error).message, message)
    }
  }
})

test('the best hit whole, the others above the floor one line each (id and title); wholeFacts prints more whole', async () => {
  const k = kernelFor({ memoryRetrieval: { minRelevanceRatio: 0 } })
  for (const name of ['alpha', 'bravo', 'charlie'])
    await k.memory.write({
      title: `Invoices rule ${name} applies`,
      body: `Invoices of ${name} are special.`,
      type: 'convention',
      scope: `module:${name}`,
    })
  const r = await k.memory.search({ query: 'invoice rules' })
  const [first, ...rest] = r.hits.map((h) => h.fact)
  assert.is(r.hits.length, 3)
  assert.is(r.brief, 2)
  assert.is(
    r.text,
    [
      renderFactBlock(first!),
      ['Weaker matches (search an id to read it whole):', ...rest.map((f) => `- ${f.id} ${f.title}`)].join('\n'),
    ].join('\n\n'),
  )
  const byId = await k.memory.search({ query: rest.map((f) => f.id).join(' ') })
  assert.is(byId.text, rest.map((f) => renderFactBlock(f)).join('\n\n'), 'their ids return them whole')

  const three = await kernelFor(
    { memoryRetrieval: { minRelevanceRatio: 0, wholeFacts: 3 } },
    { storage: k.storage },
  ).memory.search({ query: 'invoice rules' })
  assert.is(three.text, three.hits.map((h) => renderFactBlock(h.fact)).join('\n\n'))
  assert.is(three.brief, undefined)
})

test.run()
