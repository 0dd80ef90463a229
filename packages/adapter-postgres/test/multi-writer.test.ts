import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { factId } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { postgresStorage } from '../src/index.js'
import { startChild, waitForLine } from './child.js'
import { useServer } from './helpers.js'

const server = useServer(test)
const WORKERS = 8
const WRITES = 100

test(`${WORKERS} processes × ${WRITES} memory writes through openProject into one database: 800 facts, ids gapless, nothing lost`, async () => {
  const url = await server.fresh()
  const root = mkdtempSync(join(tmpdir(), 'foundry-pg-project-'))
  try {
    mkdirSync(join(root, '.foundry'))
    writeFileSync(join(root, '.foundry', 'config.json'), JSON.stringify({ storage: { kind: 'postgres' } }))
    const env = { ...process.env, FOUNDRY_DATABASE_URL: url }
    const children = Array.from({ length: WORKERS }, (_, k) =>
      startChild('project-writer', [root, String(k), String(WRITES)], env),
    )
    await Promise.all(children.map((child) => waitForLine(child, 'ready')))
    const outputs = children.map(
      (child) =>
        new Promise<string[]>((resolve, reject) => {
          let out = ''
          let err = ''
          child.stdout.on('data', (d) => (out += d))
          child.stderr.on('data', (d) => (err += d))
          child.on('close', (code) =>
            code === 0
              ? resolve(JSON.parse(out.trim().split('\n').pop()!) as string[])
              : reject(new Error(`writer exited with ${code}: ${err.trim()}`)),
          )
        }),
    )
    // Every writer starts at once, so their writes contend for the exclusive section.
    for (const child of children) child.stdin.end('go\n')
    const given = (await Promise.all(outputs)).flat()
    const total = WORKERS * WRITES
    const expected = Array.from({ length: total }, (_, i) => factId(i + 1))
    assert.equal([...given].sort(), [...expected].sort(), 'each id was handed out exactly once')

    const storage = await postgresStorage({ url })
    const facts = await storage.list('facts')
    assert.is(facts.length, total)
    assert.equal(new Set(facts.map((f) => f.id)), new Set(expected), `fact-0001 … ${factId(total)}, no gaps`)
    assert.ok(
      facts.every((f) => f.status === 'active'),
      'no write superseded another',
    )
    for (let k = 0; k < WORKERS; k++)
      assert.is(facts.filter((f) => f.scope === `module:w${k}`).length, WRITES, `worker ${k}`)
    assert.is(
      (await storage.readEvents()).filter((e) => e.kind === 'memory_write').length,
      total,
      'one event per write',
    )
    await storage.close?.()
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test.run()
