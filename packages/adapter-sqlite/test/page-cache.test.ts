import Database from 'better-sqlite3'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openTarget, PAGE_CACHE_KIB } from '../src/open.js'
import { tempDb } from './helpers.js'

const cacheSize = (db: Database.Database) => Number(db.pragma('cache_size', { simple: true }))

test("a file this package opens keeps a page cache of PAGE_CACHE_KIB, not the binding's default", async () => {
  const path = tempDb()
  // Not the binding's build default: the size is this package's choice.
  const plain = new Database(path)
  assert.is.not(cacheSize(plain), -PAGE_CACHE_KIB)
  plain.close()
  const opened = openTarget({ path })
  assert.is(cacheSize(opened.connection.db), -PAGE_CACHE_KIB)
  assert.ok(PAGE_CACHE_KIB <= 2000)
  await opened.close()
})

test("a database the caller owns keeps the caller's page cache", async () => {
  const db = new Database(tempDb())
  db.pragma('cache_size = -8000')
  const opened = openTarget({ database: db })
  assert.is(cacheSize(opened.connection.db), -8000)
  await opened.close()
  db.close()
})

test.run()
