import MiniSearch from 'minisearch'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { processTerm, type RetrievalDoc } from '@foundry/kernel/adapter'
import { distractors } from '@foundry/kernel/testing'
import { rawMatches, searchLookup, termLookup } from '../src/internals.js'

const index = new MiniSearch<RetrievalDoc>({
  fields: ['title', 'body'],
  storeFields: ['type'],
  processTerm,
})
index.addAll([
  ...distractors(200),
  {
    id: 'fact-0001',
    title: 'Kubernetes manifests live in infra',
    body: 'Helm charts too.',
    tags: [],
    type: 'convention',
    scope: 'project',
  },
])

test('rawMatches gives what search() gives, before its terms-matched multiplier, for the pinned MiniSearch', () => {
  const options = { prefix: true, fuzzy: 0.2, boost: { title: 2 } }
  for (const q of [
    'kubernetes helm',
    'logging structured json',
    'auth oauth tokens prefers',
    'module team standard',
    'nothing-matches-this',
  ]) {
    const viaSearch = new Map(
      index.search(q, options).map((r) => [String(r.id), { score: r.score / r.queryTerms.length, type: r.type }]),
    )
    const raw = [...(rawMatches(index, q, options) ?? [])]
    assert.is(raw.length, viaSearch.size, q)
    for (const hit of raw) {
      const expected = viaSearch.get(hit.id)
      assert.ok(expected, `${q}: ${hit.id}`)
      assert.ok(Math.abs(hit.score - expected!.score) < 1e-9, `${q}: score of ${hit.id}`)
      assert.is(hit.stored?.type, expected!.type)
    }
  }
})

test('a discarded document is not matched', () => {
  const copy = MiniSearch.loadJSON<RetrievalDoc>(JSON.stringify(index), {
    fields: ['title', 'body'],
    storeFields: ['type'],
    processTerm,
  })
  copy.discard('fact-1003')
  const ids = [...(rawMatches(copy, 'team standard', {}) ?? [])].map((h) => h.id)
  assert.ok(ids.length > 0)
  assert.not.ok(ids.includes('fact-1003'))
})

test('termLookup knows the processed terms of the index', () => {
  const known = termLookup(index)!
  assert.ok(known('kubernet'))
  assert.not.ok(known('kubernetes'), 'terms are stored stemmed')
  assert.not.ok(known('zzz'))
})

test('searchLookup, the public-API fallback, agrees with termLookup', () => {
  const known = termLookup(index)!
  const viaSearch = searchLookup(index)
  for (const term of ['kubernet', 'kubernetes', 'helm', 'chart', 'log', 'logging', 'zzz', 'modul', 'modu'])
    assert.is(viaSearch(term), known(term), term)
})

test('without the internals both answer undefined, so the retriever falls back to the public API', () => {
  const bare = Object.create(null) as MiniSearch<RetrievalDoc>
  assert.is(termLookup(bare), undefined)
  assert.is(rawMatches(bare, 'x', {}), undefined)
})

test.run()
