import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { HOOK_BIN, larkspurProject, payload } from './helpers.js'

/** A prompt about one Larkspur fact, and that fact's title. */
const ABOUT = 'how should I round VAT on invoice lines?'
const TITLE = "Invoice line totals use banker's rounding"

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

test('in its own process the hook reads stdin from a pipe or a file whole, and loads none of crypto, net, streams, perf_hooks and TypeBox', async () => {
  const dir = await larkspurProject()
  // Past one 64 KiB read: the event JSON is read to its end, not to the first chunk.
  const event = JSON.stringify(payload.prompt(dir, `${ABOUT}${' '.repeat(100_000)}`))
  const loaded = join(mkdtempSync(join(tmpdir(), 'foundry-hook-mods-')), 'mods.cjs')
  writeFileSync(
    loaded,
    [
      "const fs = require('node:fs'); const read = fs.readFileSync; const files = []",
      'fs.readFileSync = function (path, ...rest) { files.push(String(path)); return read.call(this, path, ...rest) }',
      "process.on('exit', () => fs.writeSync(2, '\\nread ' + files.join(',') + '\\nmodules ' + process.moduleLoadList.join(',') + '\\n'))",
    ].join('\n'),
  )
  const env = { ...process.env, FOUNDRY_HOOK_SERVER: 'off' }
  // The first hook on a new project may write (the retriever's snapshot, under the write lock): not this test's case.
  spawnSync(process.execPath, [HOOK_BIN, 'prompt-context'], { input: event, env })
  const piped = spawnSync(process.execPath, ['-r', loaded, HOOK_BIN, 'prompt-context'], {
    input: event,
    env,
    encoding: 'utf8',
  })
  const file = join(dir, 'event.json')
  writeFileSync(file, event)
  const fd = openSync(file, 'r')
  const fromFile = spawnSync(process.execPath, ['-r', loaded, HOOK_BIN, 'prompt-context'], {
    stdio: [fd, 'pipe', 'pipe'],
    env,
    encoding: 'utf8',
  })
  closeSync(fd)
  for (const [how, ran] of [
    ['a pipe', piped],
    ['a file', fromFile],
  ] as const) {
    assert.is(ran.status, 0, `${how}: ${ran.stderr}`)
    assert.ok(JSON.parse(ran.stdout).hookSpecificOutput.additionalContext.includes(TITLE), how)
    const modules = /modules (.*)\n$/.exec(ran.stderr)![1]!.split(',')
    for (const builtin of ['NativeModule crypto', 'NativeModule net', 'NativeModule stream', 'NativeModule perf_hooks'])
      assert.not.ok(modules.includes(builtin), `${how}: ${builtin} loaded`)
    // TypeBox is a script of its own beside the hook's, run on first use: a search never uses it.
    const read = /\nread (.*)\n/.exec(ran.stderr)![1]!.split(',')
    assert.ok(
      read.some((path) => path.endsWith('foundry-hook-run.cjs')),
      `${how}: the hook's script is read (${read})`,
    )
    assert.not.ok(
      read.some((path) => path.endsWith(TYPEBOX_SCRIPT)),
      `${how}: TypeBox loaded`,
    )
  }
  assert.ok(existsSync(join(dirname(HOOK_BIN), TYPEBOX_SCRIPT)), `${TYPEBOX_SCRIPT} beside the hook's script`)
})

const TYPEBOX_SCRIPT = 'on-demand-typebox.cjs'

test.run()
