import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'

const dist = join(import.meta.dirname, '..', 'dist')
const builtins =
  /(?:from\s*|import\s*\(\s*|require\s*\(\s*)["'](node:[^"']+|fs|path|os|child_process|crypto|url|util|stream|events|buffer|process)["']/

test('the built kernel imports no node: module (it runs in any JS runtime)', () => {
  const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))
  assert.ok(files.length >= 2, `built files in ${dist}: run the build first`)
  for (const file of files) {
    const text = readFileSync(join(dist, file), 'utf8')
    assert.not.match(text, builtins, `${file} imports a Node built-in`)
    // A runtime's own decoder and clock are feature-detected on `globalThis` (base64.ts, clock.ts), never assumed.
    assert.not.match(
      text,
      /(?<!\.)\bprocess\.|(?<!globalThis\.)\bBuffer\b|__dirname|\brequire\(/,
      `${file} uses a Node global`,
    )
  }
})

test('the detector itself catches a node: import', () => {
  assert.match(`import { readFile } from "node:fs"`, builtins)
  assert.match(`const x = await import('path')`, builtins)
})

test.run()
