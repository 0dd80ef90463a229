import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { contextOf, larkspurProject, messageOf, payload, plainFolder, runHookBin } from './helpers.js'

const tree = (dir: string) => (readdirSync(dir, { recursive: true }) as string[]).sort()

test('FOUNDRY_ROOT naming no project: every hook is silent, and nothing is created there or in cwd', async () => {
  const cwd = plainFolder()
  const plain = plainFolder()
  const missing = join(plainFolder(), 'no', 'such', 'dir')
  for (const root of [plain, missing]) {
    for (const [hook, input] of [
      ['session-start', payload.sessionStart(cwd)],
      ['prompt-context', payload.prompt(cwd, 'the stripe webhook handler created duplicate payments')],
      ['subagent-firewall', payload.subagentStop(cwd, messageOf(5000))],
      ['session-end', payload.sessionEnd(cwd)],
    ] as const) {
      const ran = await runHookBin(hook, input, { FOUNDRY_ROOT: root })
      assert.equal([ran.code, ran.stdout, ran.stderr], [0, '', ''], `${hook} with FOUNDRY_ROOT=${root}`)
    }
  }
  assert.equal(tree(plain), [])
  assert.equal(tree(cwd), [])
  assert.not.ok(existsSync(missing))
})

test('from a subfolder, the hooks use the project above and leave no .foundry/ in the subfolder', async () => {
  const dir = await larkspurProject()
  const sub = join(dir, 'apps', 'web')
  mkdirSync(sub, { recursive: true })
  assert.ok(
    contextOf(
      await runHookBin('prompt-context', payload.prompt(sub, 'the stripe webhook handler created duplicate payments')),
    ),
  )
  assert.is((await runHookBin('session-end', payload.sessionEnd(sub))).code, 0)
  assert.equal(tree(join(dir, 'apps')), ['web'])
})

test.run()
