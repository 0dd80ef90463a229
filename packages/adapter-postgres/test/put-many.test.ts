import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { postgresStorage } from '../src/index.js'
import { useServer } from './helpers.js'

const server = useServer(test)

/** Texts that SQL quoting must carry through unchanged: quotes, backslashes, `$n`, E-string look-alikes, non-ASCII. */
const TRICKY = [
  `it's`,
  'a \\ backslash and \\\\ two',
  `E'\\x41' and '' and \\'`,
  'a $1 and $2::text in the text',
  '{"json":"with \\"quotes\\" and \\\\n"}',
  'ünïcödé — 漢字 🎉',
  '',
]

test('putMany writes every record in one step, a key given twice keeps its last value, and changes() lists each key', async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url })
  const other = await postgresStorage({ url, revisionCache: false })
  try {
    await storage.put('meta', 'before', 'x')
    const since = await storage.revision('meta')
    await storage.putMany('meta', [
      { key: 'a', value: 'one' },
      { key: 'b', value: 'two' },
      { key: 'a', value: 'three' },
    ])
    assert.is(await other.get('meta', 'a'), 'three')
    assert.is(await other.get('meta', 'b'), 'two')
    assert.equal([...new Set(await other.changes!('meta', since))].sort(), ['a', 'b'])
    assert.is(await other.revision('meta'), await storage.revision('meta'))
    assert.equal(await other.changes!('meta', await other.revision('meta')), [])
  } finally {
    await storage.close?.()
    await other.close?.()
  }
})

test('inside a section: putMany and put carry any text through, and the revision after them is the one committed', async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url })
  const other = await postgresStorage({ url, revisionCache: false })
  try {
    await storage.put('meta', 'seed', 'x')
    const inside = await storage.exclusive(async () => {
      await storage.revision('meta') // the section holds the revision row: its writes predict their revision
      await storage.putMany(
        'meta',
        TRICKY.map((value, i) => ({ key: `many-${i}`, value })),
      )
      for (const [i, value] of TRICKY.entries()) await storage.put('meta', `one-${i}`, value)
      return storage.revision('meta')
    })
    for (const [i, value] of TRICKY.entries()) {
      assert.is(await other.get('meta', `many-${i}`), value, `putMany ${JSON.stringify(value)}`)
      assert.is(await other.get('meta', `one-${i}`), value, `put ${JSON.stringify(value)}`)
    }
    assert.is(await other.revision('meta'), inside, 'the revision the section predicted')
    assert.is(inside.split('.')[0], String(1 + 2 * TRICKY.length), 'one change a record')
  } finally {
    await storage.close?.()
    await other.close?.()
  }
})

test.run()
