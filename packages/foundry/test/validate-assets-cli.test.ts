import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, tempDir } from './helpers.js'

test.after(cleanup)

/** A plugin folder with one agent declaring `effort`. */
function plugin(effort: string): string {
  const root = tempDir()
  mkdirSync(join(root, 'agents'), { recursive: true })
  writeFileSync(
    join(root, 'agents', 'reviewer.md'),
    `---\nname: reviewer\ndescription: Reviews\nmodel: sonnet\neffort: ${effort}\n---\nYou review.\n`,
  )
  return root
}

test('foundry validate-assets <missing folder>: an error naming the folder, exit 1', () => {
  const missing = join(tempDir(), 'no', 'such', 'dir')
  const ran = cli(['validate-assets', missing])
  assert.equal(
    [ran.code, ran.stdout, ran.stderr],
    [1, '', `error: No folder at ${missing}: pass a project or plugin folder that exists\n`],
  )
  const file = join(plugin('low'), 'agents', 'reviewer.md')
  const onFile = cli(['validate-assets', file])
  assert.equal(
    [onFile.code, onFile.stderr],
    [1, `error: ${file} is a file, not a folder: pass the project or plugin folder that holds it\n`],
  )
})

test('foundry validate-assets: effort: turbo fails with the listed values; xhigh passes', () => {
  const turbo = cli(['validate-assets', plugin('turbo')])
  assert.equal(
    [turbo.code, turbo.stdout],
    [
      1,
      'agents/reviewer.md:5: effort: turbo is not a reasoning effort: use low, medium, high or xhigh, per the routing table\n1 violation in 1 agent definition and 0 skills.\n',
    ],
  )
  const xhigh = cli(['validate-assets', plugin('xhigh')])
  assert.equal([xhigh.code, xhigh.stdout], [0, 'Checked 1 agent definition and 0 skills: no violations.\n'])
})

test.run()
