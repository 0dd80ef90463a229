import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bm25Retriever, createKernel, memoryStorage, type Retriever, type Storage } from '../src/index.js'
import { isUnspacedWord, MAY_BE_UNSPACED, NO_SPACE_SCRIPTS, segmentWords } from '../src/analyze.js'
import { distractors } from '../src/testing/index.js'
import { kernelFor } from './helpers.js'

const words = (text: string) => segmentWords(text).split(/\s+/).filter(Boolean)

test('segmentWords splits the scripts written without spaces into words and leaves other text as it is', () => {
  assert.equal(words('注文は決済後に確定する'), ['注文', 'は', '決済', '後に', '確定', 'する'], 'Japanese')
  assert.equal(
    words('数据库迁移必须先在预发布环境验证'),
    ['数据', '库', '迁移', '必须', '先', '在', '预', '发布', '环境', '验证'],
    'Chinese',
  )
  assert.equal(
    words('การชำระเงินต้องยืนยันภายในสามสิบนาที'),
    ['การ', 'ชำระ', 'เงิน', 'ต้อง', 'ยืนยัน', 'ภายใน', 'สามสิบ', 'นาที'],
    'Thai',
  )
  assert.equal(
    words('Stripe の決済は webhook で確定する。'),
    ['Stripe', 'の', '決済', 'は', 'webhook', 'で', '確定', 'する'],
    'mixed: punctuation in the run dropped',
  )
  for (const same of ['Deployments require two approvals', 'Ünïcödé, Ελληνικά, русский, 한국어 띄어쓰기', ''])
    assert.is(segmentWords(same), same, `${same}: no script without spaces, returned as it is`)
  assert.ok(isUnspacedWord('決済') && isUnspacedWord('ยืนยัน') && !isUnspacedWord('stripe') && !isUnspacedWord('한국어'))
})

async function multilingual(storage: Storage = memoryStorage(), retriever: Retriever = bm25Retriever()) {
  const k = kernelFor({}, { storage, retriever })
  for (const [i, d] of distractors(30).entries())
    await k.memory.write({ title: d.title, body: `${d.body} Entry ${i}.`, type: 'convention', scope: `module:m${i}` })
  await k.memory.write({ title: '注文は決済後に確定する', body: '在庫は毎晩同期される。', type: 'constraint' })
  await k.memory.write({
    title: '数据库迁移必须先在预发布环境验证',
    body: '生产环境只接受已验证的迁移。',
    type: 'constraint',
  })
  await k.memory.write({ title: 'การชำระเงินต้องยืนยันภายในสามสิบนาที', body: 'ใบแจ้งหนี้ส่งทางอีเมลทุกเดือน', type: 'constraint' })
  await k.memory.write({
    title: 'Deployments require two approvals',
    body: 'Production releases need two reviewers.',
    type: 'constraint',
  })
  return k
}

const FOUND: Array<[query: string, id: string]> = [
  ['決済', 'fact-0031'],
  ['同期', 'fact-0031'],
  ['注文の確定', 'fact-0031'],
  ['迁移', 'fact-0032'],
  ['验证', 'fact-0032'],
  ['ยืนยัน', 'fact-0033'],
  ['อีเมล', 'fact-0033'],
  ['deploying approval', 'fact-0034'],
]

test('kernel.memory.search finds Japanese, Chinese and Thai facts by one word, above the relevance floor; English stemming unchanged', async () => {
  const k = await multilingual()
  for (const [query, id] of FOUND) {
    const r = await k.memory.search({ query })
    assert.is(r.hits[0]?.fact.id, id, query)
    assert.ok(r.hits[0]!.relevance >= 0.5, `${query}: relevance ${r.hits[0]!.relevance}`)
  }
  for (const query of ['配送', '物流', 'สินค้า']) {
    const r = await k.memory.search({ query })
    assert.is(r.text, `No stored fact matches "${query}". Memory holds 34 active facts.`, query)
  }
})

test('a new process answers from the stored bm25 snapshot with the same words', async () => {
  const storage = memoryStorage()
  await (await multilingual(storage, bm25Retriever())).memory.index()
  const head = JSON.parse((await storage.get('meta', 'retriever/bm25/head'))!)
  assert.is(head.revision, await storage.revision('facts'), 'every fact is in the snapshot, none replayed')
  for (const [query, id] of FOUND) {
    const k = createKernel({ storage, retriever: bm25Retriever() })
    assert.is((await k.memory.search({ query })).hits[0]?.fact.id, id, query)
  }
})

test('the quick check for scripts without spaces lets through every character of theirs', () => {
  const theirs = new RegExp(`[${NO_SPACE_SCRIPTS}]`, 'u')
  const missed: string[] = []
  for (let c = 0; c < 0x110000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue
    const ch = String.fromCodePoint(c)
    if (theirs.test(ch) && !MAY_BE_UNSPACED.test(ch)) missed.push(`U+${c.toString(16).toUpperCase()}`)
  }
  assert.equal(missed, [])
  // Text of one of them alone still counts: `·` is in Katakana's script extensions.
  assert.ok(isUnspacedWord('\u00B7'))
  assert.not.ok(isUnspacedWord('naïve café'))
})

test.run()
