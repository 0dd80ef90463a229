import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, tempDir } from './helpers.js'

const test = suite('foundry config: the effective configuration and where each value came from')
test.after(cleanup)

test('file, profile and default values are told apart; secrets in the environment are shown as set, never printed', () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  writeFileSync(
    join(root, '.foundry', 'config.json'),
    JSON.stringify({ storage: { kind: 'fs' }, profile: 'startup-mvp', indexTokenBudget: 6000 }),
  )
  const out = cli(['config'], {
    cwd: root,
    env: { FOUNDRY_TOKEN: 'tok-planted-secret', FOUNDRY_HOOK_TIMEOUT_MS: '800' },
  })
  assert.is(out.code, 0, out.stderr)
  const file = join(root, '.foundry', 'config.json')
  assert.match(out.stdout, new RegExp(`indexTokenBudget +6000  \\(${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`))
  assert.match(out.stdout, /enforcement +"warn" {2}\(profile startup-mvp\)/)
  assert.match(out.stdout, /handoffSummaryTokenBudget +300 {2}\(default\)/)
  assert.match(out.stdout, /retrieval +\{"kind":"bm25"\} {2}\(default\)/)
  assert.match(out.stdout, /FOUNDRY_TOKEN=\(set\)/)
  assert.match(out.stdout, /FOUNDRY_HOOK_TIMEOUT_MS=800/)
  assert.not.match(out.stdout + out.stderr, /tok-planted-secret/)
  const json = JSON.parse(cli(['config', '--json'], { cwd: root }).stdout) as {
    settings: Array<{ key: string; from: string }>
  }
  assert.is(json.settings.find((s) => s.key === 'memoryRetrieval.maxFacts')?.from, 'default')
})

test.run()
