import { spawnSync } from 'node:child_process'
import { chmodSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Fact } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { sqliteStorage } from '../src/index.js'
import { tempDir } from './helpers.js'

const fact = (n: number): Fact => ({
  id: `fact-000${n}`,
  title: `T${n}`,
  body: 'B',
  type: 'domain',
  scope: 'project',
  tags: [],
  confidence: 'medium',
  source: 'code',
  created: '2026-01-01T00:00:00.000Z',
  status: 'active',
})
const root = process.getuid?.() === 0

test('a database in a folder the process cannot write still reads; a write says the file is read-only here', async () => {
  if (!root) return // needs root to run the reader as another user (root itself writes anywhere)
  const dir = tempDir()
  const path = join(dir, 'foundry.db')
  const storage = sqliteStorage({ path })
  for (const n of [1, 2]) await storage.put('facts', `fact-000${n}`, fact(n))
  await storage.close?.()
  chmodSync(path, 0o444)
  chmodSync(dir, 0o555)
  const home = tempDir() // the reader's own HOME, not the shared temporary folder
  chmodSync(home, 0o777)
  try {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'readonly-reader.ts'), path],
      {
        cwd: join(import.meta.dirname, '..'),
        uid: 65534,
        gid: 65534,
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...process.env, HOME: home, TSX_TSCONFIG_PATH: join(import.meta.dirname, '..', 'tsconfig.json') },
      },
    )
    const out = child.stdout + child.stderr
    assert.match(out, /^read 2$/m, out)
    assert.match(out, /^write UNAVAILABLE: .*foundry\.db is read-only here/m, out)
    assert.not.match(out, /disk has space/, out)
    assert.equal(readdirSync(dir), ['foundry.db'], 'nothing created beside it')
  } finally {
    chmodSync(dir, 0o755)
  }
})

test.run()
