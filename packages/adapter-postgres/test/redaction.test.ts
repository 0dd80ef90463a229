import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { postgresDescriptor, postgresStorage } from '../src/index.js'
import { databaseUrl } from '../src/descriptor.js'
import { redactText, redactUrl } from '../src/url.js'
import { failure, useServer } from './helpers.js'

const server = useServer(test)
const site = { root: '/project', dataDir: '/project/.foundry' }

test('redactUrl hides the password of every URL shape, and nothing else', () => {
  assert.is(
    redactUrl('postgres://alice:s3cret@db.example:5432/foundry'),
    'postgres://alice:***@db.example:5432/foundry',
  )
  assert.is(
    redactUrl('postgresql://alice:p%40ss%3Aword@db/foundry?sslmode=require'),
    'postgresql://alice:***@db/foundry?sslmode=require',
  )
  assert.is(
    redactUrl('postgres://db/foundry?user=alice&password=s3cret'),
    'postgres://db/foundry?user=alice&password=***',
  )
  assert.is(redactUrl('postgres://alice@db/foundry'), 'postgres://alice@db/foundry', 'no password, nothing to hide')
  assert.not.match(redactUrl('not a url alice:s3cret@db'), 's3cret')
  assert.is(
    redactText('failed for postgres://a:p%40ss@h/d (p@ss)', 'postgres://a:p%40ss@h/d'),
    'failed for postgres://a:***@h/d (***)',
    'the URL and the decoded password',
  )
})

test('a wrong password is refused with UNAVAILABLE, naming the URL without the password', async () => {
  const url = new URL(server.url)
  url.password = 'wrong-secret-4711'
  const error = await failure(() => postgresStorage({ url: url.toString() }))
  assert.is(error.code, 'UNAVAILABLE')
  assert.match(error.message, 'refused the credentials')
  assert.match(error.message, 'postgres://postgres:***@127.0.0.1')
  assert.not.match(error.message, 'wrong-secret-4711')
  assert.not.match(String((error as Error).stack), 'wrong-secret-4711')
})

test('an unreachable server is UNAVAILABLE, without the password', async () => {
  const error = await failure(() => postgresStorage({ url: 'postgres://alice:hunter2-secret@127.0.0.1:1/foundry' }))
  assert.is(error.code, 'UNAVAILABLE')
  assert.match(error.message, 'postgres://alice:***@127.0.0.1:1/foundry cannot be used right now')
  assert.not.match(error.message, 'hunter2-secret')
})

test('the URL comes from the options, else FOUNDRY_DATABASE_URL; neither, or a wrong one, is one clear line', () => {
  assert.is(databaseUrl({ url: 'postgres://a:b@h/d' }, site, {}), 'postgres://a:b@h/d')
  assert.is(databaseUrl({}, site, { FOUNDRY_DATABASE_URL: 'postgresql://e/f' }), 'postgresql://e/f')
  assert.is(
    databaseUrl({ url: 'postgres://file/wins' }, site, { FOUNDRY_DATABASE_URL: 'postgres://env/loses' }),
    'postgres://file/wins',
  )
  let error: any
  try {
    databaseUrl({}, site, {})
  } catch (e) {
    error = e
  }
  assert.is(error.code, 'INVALID_INPUT')
  assert.match(error.message, 'FOUNDRY_DATABASE_URL')
  assert.match(error.message, '"url" in the storage of /project/.foundry/config.json')
  try {
    databaseUrl({}, site, { FOUNDRY_DATABASE_URL: 'mysql://root:topsecret@h/d' })
  } catch (e) {
    error = e
  }
  assert.is(error.message, 'FOUNDRY_DATABASE_URL must be a postgres:// or postgresql:// URL; got mysql://root:***@h/d')
  try {
    databaseUrl({ url: 'postgres://root:top secret@' }, site, {})
  } catch (e) {
    error = e
  }
  assert.match(error.message, 'storage.url in /project/.foundry/config.json')
  assert.not.match(error.message, 'top secret')
})

test('locations, doctor findings and errors never carry the password', async () => {
  const url = await server.fresh()
  const password = new URL(url).password
  assert.ok(password.length > 8, 'the test server has a password')
  const storage = await postgresDescriptor.open({ url }, site)
  try {
    assert.not.match(storage.locate('facts', 'fact-0001'), password)
    assert.match(storage.locate('facts', 'fact-0001'), '***@127.0.0.1')
    await storage.put('facts', 'fact-0001', { not: 'a fact' } as never)
    const corrupt = await failure(() => storage.get('facts', 'fact-0001'))
    assert.is(corrupt.code, 'CORRUPT')
    assert.not.match(corrupt.message, password)
  } finally {
    await storage.close?.()
  }
  const findings = await postgresDescriptor.doctor!({ url }, site, { fix: false })
  assert.ok(
    findings.some((f) => f.check === 'schema' && f.status === 'note'),
    JSON.stringify(findings),
  )
  assert.not.match(JSON.stringify(findings), password)
})

test.run()
