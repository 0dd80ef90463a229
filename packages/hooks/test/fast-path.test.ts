import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { HOOK_BIN } from './helpers.js'

/** Every file the module at `file` imports statically, transitively (the chunks of a bundled bin). */
function staticGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen
  seen.add(file)
  const text = readFileSync(file, 'utf8')
  // `import … from "./x.js"` and `import "./x.js"`, not `import("./x.js")`: what loads before main() runs.
  for (const [, spec] of text.matchAll(/^(?:import|export)\s[^;]*?["'](\.\/[^"']+)["']/gm))
    staticGraph(join(dirname(file), spec!), seen)
  return seen
}

test('the hook bin finds the project and asks the hook server without loading the kernel or an adapter', () => {
  const files = [...staticGraph(HOOK_BIN)]
  const bytes = files.reduce((sum, file) => sum + readFileSync(file).length, 0)
  const text = files.map((file) => readFileSync(file, 'utf8')).join('\n')
  assert.ok(text.includes('.foundry'), 'finding the project is on the fast path')
  for (const marker of ['createKernel', 'minisearch', 'better-sqlite3', 'proper-lockfile', 'typebox'])
    assert.not.ok(text.includes(marker), marker)
  assert.ok(bytes < 64 * 1024, `the fast path is ${bytes} bytes`)
  // CommonJS: Node starts it without its ES module loader.
  assert.ok(HOOK_BIN.endsWith('.cjs') && !/^(?:import|export)\s/m.test(text), 'the entry is one CommonJS file')
})

test.run()
