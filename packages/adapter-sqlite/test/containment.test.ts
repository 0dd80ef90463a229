import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { isFoundryError, type Storage } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ftsDescriptor, sqliteDescriptor } from '../src/index.js'
import { tempDir } from './helpers.js'

const site = (root: string) => ({ root, dataDir: join(root, '.foundry') })

async function refusal(fn: () => unknown): Promise<{ code?: string; message: string }> {
  try {
    const opened = (await fn()) as Storage | undefined
    await opened?.close?.()
    return { message: 'opened' }
  } catch (error) {
    return { code: isFoundryError(error) ? error.code : 'THROWN', message: (error as Error).message }
  }
}

test('a relative sqlite path that leaves the project root is refused, and nothing is created outside', async () => {
  const parent = tempDir()
  const root = join(parent, 'project')
  mkdirSync(join(root, '.foundry'), { recursive: true })
  for (const path of ['../x.db', 'sub/../../x.db', '.foundry/../../x.db']) {
    const r = await refusal(() => sqliteDescriptor.open({ path }, site(root)))
    assert.is(r.code, 'INVALID_INPUT', `${path}: ${r.message}`)
    assert.match(r.message, /outside the project/, r.message)
    const fts = await refusal(() =>
      ftsDescriptor.open({ path }, { ...site(root), storage: { kind: 'fs', options: {} } }),
    )
    assert.is(fts.code, 'INVALID_INPUT', `fts ${path}: ${fts.message}`)
  }
  assert.equal(readdirSync(parent), ['project'], 'no database beside the project')
})

test('a database path inside the project that is a link out is refused: cache/fts.db, the sqlite file, or a folder on the way', async () => {
  const root = tempDir()
  const outside = tempDir()
  mkdirSync(join(root, '.foundry', 'cache'), { recursive: true })
  symlinkSync(join(outside, 'fts.db'), join(root, '.foundry', 'cache', 'fts.db'))
  const fts = await refusal(() => ftsDescriptor.open({}, { ...site(root), storage: { kind: 'fs', options: {} } }))
  assert.is(fts.code, 'CORRUPT', fts.message)
  assert.match(fts.message, /leads outside/)
  symlinkSync(outside, join(root, 'db'))
  const linked = await refusal(() => sqliteDescriptor.open({ path: 'db/foundry.db' }, site(root)))
  assert.is(linked.code, 'CORRUPT', linked.message)
  assert.equal(readdirSync(outside), [], 'no database created outside')
})

test('the defaults and paths inside the root open; an absolute path is the config author’s explicit choice and opens', async () => {
  const root = tempDir()
  mkdirSync(join(root, '.foundry'), { recursive: true })
  const storage = await sqliteDescriptor.open({}, site(root))
  await storage.close?.()
  assert.ok(existsSync(join(root, '.foundry', 'foundry.db')))
  const inside = await sqliteDescriptor.open({ path: 'data/x.db' }, site(root))
  await inside.close?.()
  const elsewhere = join(tempDir(), 'shared.db')
  const absolute = await sqliteDescriptor.open({ path: elsewhere }, site(root))
  await absolute.close?.()
  assert.ok(existsSync(elsewhere))
})

test.run()
