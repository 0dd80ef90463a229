import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { BIN, call, cleanup, cli, connect, tempDir } from './helpers.js'

/*
 * A contract whose patterns backtrack exponentially in JavaScript (overlapping alternatives) meets
 * strings crafted against them: the server and the CLI answer, because patterns run on a
 * linear-time engine. Bounded by timeouts, so a regression fails instead of hanging the suite.
 */

const test = suite('contracts: crafted strings against overlapping patterns')
test.after(cleanup)

const PATTERNS = ['^([a-z]|[a-z0-9])+$', '(a|aa)+$', '^(a|a?)+$', '^(?:a|b|ab)*c$']
const CRAFTED = [`${'a'.repeat(50_000)}!`, `${'a'.repeat(50_000)}!`, `${'a'.repeat(50_000)}!`, 'ab'.repeat(25_000)]

function project(): string {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  mkdirSync(join(root, '.foundry', 'contracts'), { recursive: true })
  const properties = Object.fromEntries(PATTERNS.map((pattern, i) => [`p${i}`, { type: 'string', pattern }]))
  writeFileSync(join(root, '.foundry', 'contracts', 'names.v1.json'), JSON.stringify({ type: 'object', properties }))
  return root
}

const crafted = Object.fromEntries(CRAFTED.map((text, i) => [`p${i}`, text]))

test('foundry mcp answers contract_validate on every crafted string, and answers the next call', async () => {
  const root = project()
  const server = await connect(root)
  try {
    const result = await server.client.callTool(
      { name: 'contract_validate', arguments: { schema: 'names.v1', data: crafted } },
      undefined,
      { timeout: 60_000 },
    )
    const text = (result.content as Array<{ text: string }>)[0]!.text
    assert.match(text, /^INVALID against names\.v1/)
    for (const field of ['p0', 'p1', 'p2', 'p3']) assert.match(text, new RegExp(`- ${field} has the wrong form`))
    assert.match(
      (await call(server.client, 'contract_validate', { schema: 'names.v1', data: { p0: 'abc1', p3: 'abc' } })).text,
      /^VALID/,
    )
  } finally {
    await server.close()
  }
})

test('foundry validate answers from a file of crafted strings', () => {
  const root = project()
  const file = join(root, 'artifact.json')
  writeFileSync(file, JSON.stringify(crafted))
  const run = spawnSync(process.execPath, [BIN, 'validate', 'names.v1', file], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    input: '',
  })
  assert.is(run.signal, null, 'foundry validate hung')
  assert.is(run.status, 1, run.stdout + run.stderr)
  assert.match(run.stdout, /INVALID against names\.v1/)
})

test.run()
