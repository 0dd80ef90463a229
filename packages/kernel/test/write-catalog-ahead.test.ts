import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, memoryStorage, type Storage } from '../src/index.js'
import { HEAD_KEY } from '../src/memory/catalog-records.js'
import { catalogContent } from '../src/testing/storage/catalog-content.js'

/** A letters-only word per number: the same-subject rule ignores digits. */
const word = (n: number) => `${[...String(n)].map((d) => 'abcdefghij'[Number(d)]).join('')}x`

/**
 * One "process" on a shared store: its own kernel (its own catalog cache) on a view of the store that
 * counts the catalog records (not the head) it reads while it holds the exclusive section.
 */
function writerProcess(base: Storage) {
  const counts = { inside: 0, recordsInside: 0 }
  const storage: Storage = {
    ...base,
    get: (async (collection: string, key: string) => {
      if (counts.inside && collection === 'meta' && key.startsWith('catalog/') && key !== HEAD_KEY)
        counts.recordsInside++
      return base.get(collection as 'meta', key)
    }) as Storage['get'],
    exclusive: (fn) =>
      base.exclusive(async () => {
        counts.inside++
        try {
          return await fn()
        } finally {
          counts.inside--
        }
      }),
  }
  return { kernel: createKernel({ storage }), counts }
}

/** Three writer processes on one new store, which holds one fact. */
async function threeWriters() {
  const base = memoryStorage()
  const writers = [writerProcess(base), writerProcess(base), writerProcess(base)]
  await writers[0]!.kernel.memory.write({
    title: 'Logs are JSON lines',
    body: 'One object a line.',
    type: 'convention',
  })
  return { base, writers }
}

/** The catalog the writers patched holds `members` and is what a rebuild writes; INDEX.md is what a rebuild renders. */
async function assertAsRebuilt(base: Storage, members: number): Promise<void> {
  const kernel = createKernel({ storage: base })
  const kept = { content: await catalogContent(base), index: await kernel.memory.readIndex() }
  assert.is(kept.content.members.length, members)
  assert.is((await kernel.memory.index()).index.text, kept.index, 'INDEX.md as a rebuild renders it')
  assert.equal(await catalogContent(base), kept.content, 'the catalog records as a rebuild writes them')
}

test('writers of three processes at once: each catches up from the others’ writes and reads no catalog record under the lock', async () => {
  const { base, writers } = await threeWriters()
  for (let round = 0; round < 20; round++)
    await Promise.all(
      writers.map(({ kernel }, k) =>
        kernel.memory.write({
          title: `Component ${word(round)} of worker ${word(k)} handles queue ${word(round + 100)}`,
          body: `Written by worker ${k}, round ${round}.`,
          type: 'convention',
        }),
      ),
    )
  assert.equal(
    writers.map((w) => w.counts.recordsInside),
    [0, 0, 0],
    'the records were read ahead, and brought up to date from the change log under the lock',
  )
  const facts = await base.list('facts')
  assert.is(facts.length, 61)
  await assertAsRebuilt(base, 61)
})

test('writers of three processes stating the same facts at once dedupe and supersede each other, and the patched catalog is the rebuilt one', async () => {
  const { base, writers } = await threeWriters()
  const results = []
  for (let i = 0; i < 15; i++)
    results.push(
      ...(await Promise.all(
        writers.map(({ kernel }, k) =>
          kernel.memory.write({
            title: `Queue ${word(i)} limit is ${100 + (k % 2)}`,
            body: `The limit of queue ${word(i)}.`,
            type: 'convention',
          }),
        ),
      )),
    )
  assert.ok(
    results.some((r) => r.action === 'duplicate'),
    'a process found another’s identical fact',
  )
  assert.ok(
    results.some((r) => r.supersedes),
    'a process superseded another’s fact',
  )
  const facts = await base.list('facts')
  for (let i = 0; i < 15; i++) {
    const active = facts.filter((f) => f.title.startsWith(`Queue ${word(i)} `) && f.status === 'active')
    assert.is(active.length, 1, `one active fact states queue ${i}'s limit`)
  }
  await assertAsRebuilt(base, 16)
})

test.run()
