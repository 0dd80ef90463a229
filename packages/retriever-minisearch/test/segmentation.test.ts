import { createKernel, memoryStorage, type Retriever, type Storage } from '@foundry/kernel'
import { distractors } from '@foundry/kernel/testing'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { minisearchRetriever } from '../src/index.js'

/** 30 English facts, then one each in Japanese, Chinese and Thai (fact-0031 to fact-0033) and one more in English. */
async function multilingual(storage: Storage, retriever: Retriever) {
  const k = createKernel({ storage, retriever, root: '/home/me/project', config: {} })
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

test('a new process answers from the stored minisearch snapshot with the same words', async () => {
  const storage = memoryStorage()
  await (await multilingual(storage, minisearchRetriever())).memory.index()
  const head = JSON.parse((await storage.get('meta', 'retriever/minisearch/head'))!)
  assert.is(head.revision, await storage.revision('facts'), 'every fact is in the snapshot, none replayed')
  for (const [query, id] of FOUND) {
    const k = createKernel({ storage, retriever: minisearchRetriever() })
    assert.is((await k.memory.search({ query })).hits[0]?.fact.id, id, query)
  }
})

test('a snapshot cut by the tokenizer before segmentation is not read: the kernel indexes again', async () => {
  const storage = memoryStorage()
  await (await multilingual(storage, minisearchRetriever())).memory.index()
  const head = JSON.parse((await storage.get('meta', 'retriever/minisearch/head'))!)
  assert.is(head.format, 'foundry-minisearch/4')
  await storage.put('meta', 'retriever/minisearch/head', JSON.stringify({ ...head, format: 'foundry-minisearch/3' }))
  const retriever = minisearchRetriever()
  const k = createKernel({ storage, retriever })
  assert.is(await retriever.revision(), undefined, 'an old head reflects nothing')
  assert.is((await k.memory.search({ query: '決済' })).hits[0]?.fact.id, 'fact-0031')
  assert.is(await retriever.revision(), await storage.revision('facts'), 'indexed again')
})

test.run()
