import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError } from '../src/index.js'
import { kernelFor } from './helpers.js'

/** The message a decision or risk body gets when a marker is missing; `undefined` when it is accepted. */
async function refusal(body: string, type = 'decision'): Promise<string | undefined> {
  try {
    await kernelFor().memory.write({ title: 'Persistence layer uses Flyway', body, type })
    return undefined
  } catch (error) {
    assert.ok(isFoundryError(error, 'INVALID_INPUT'), String(error))
    return (error as Error).message
  }
}

test('Why: and How to apply: on lines of their own are accepted, list and emphasis marks included', async () => {
  assert.is(
    await refusal('We use Flyway.\nWhy: the team reads SQL.\nHow to apply: add V<n>__name.sql files.'),
    undefined,
  )
  assert.is(
    await refusal('We use Flyway.\n- **Why:** the team reads SQL.\n- **How to apply:** add V<n>__name.sql files.'),
    undefined,
  )
  assert.is(await refusal('> why: SQL\n> how to apply: files', 'risk'), undefined)
})

test('Why: and How to apply: inside one line are accepted where a sentence starts', async () => {
  assert.is(await refusal('We use Flyway. Why: the team reads SQL. How to apply: add V<n>__name.sql files.'), undefined)
  assert.is(await refusal('Why: the team reads SQL! How to apply: add SQL files.'), undefined)
  assert.is(await refusal('Flyway, not Liquibase? Why: plain SQL. **How to apply:** add SQL files.', 'risk'), undefined)
  assert.is(await refusal('We use Flyway (decided in March). Why: SQL.\nHow to apply: add SQL files.'), undefined)
})

test('a marker inside a sentence is not one: the message says each must start a line or a sentence', async () => {
  const expected = (missing: string) =>
    `body of a decision must include "Why:" and "How to apply:", each at the start of a line or of a sentence (missing ${missing})`
  assert.is(
    await refusal('We use Flyway, and here is why: the team reads SQL. How to apply: add SQL files.'),
    expected('"Why:"'),
  )
  assert.is(
    await refusal('Why: the team reads SQL, so that is how to apply: add SQL files.'),
    expected('"How to apply:"'),
  )
  assert.is(await refusal('We use Flyway because the team reads SQL.'), expected('"Why:" and "How to apply:"'))
  assert.is(
    await refusal('We use Flyway.Why: SQL.How to apply: files.'),
    expected('"Why:" and "How to apply:"'),
    'a sentence starts after a space',
  )
})

test.run()
