// runCachedScript in fresh processes, as a bin runs it: the cache is written on the first run and used by
// the next, a script imports what it leaves out through `__import` even from the cache, and a cache
// that does not fit is replaced, never an error.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { commandOf } from '../src/cached-script.js'

const CACHED_SCRIPT = new URL('../dist/cached-script.js', import.meta.url).href
const BUILD = 'ab'.repeat(16)

/** A script as `cachedScript` builds it: the CommonJS program in its function, the build line last (` utf8` where it is not ASCII). */
function built(dir: string, name: string, body: string, build = BUILD, utf8 = false): string {
  const file = join(dir, name)
  writeFileSync(
    file,
    `(function (exports, require, module, __filename, __dirname, __import, __load) {${body}\n})\n//# build ${build}${utf8 ? ' utf8' : ''}\n`,
  )
  return file
}

/** A program that imports a module it leaves out through `await __import(…)`. */
function program(dir: string, build = BUILD): string {
  return built(
    dir,
    'demo-cli.cjs',
    `exports.main = async () => { const os = await __import('node:os'); return 'platform ' + os.platform() + ' from ' + require('node:path').basename(__filename) }`,
    build,
  )
}

/** One new process running the program through the cache folder under `tmp`. */
function run(file: string, tmp: string, env: NodeJS.ProcessEnv = {}): string {
  const code = `import { runCachedScript } from ${JSON.stringify(CACHED_SCRIPT)}
const { main } = runCachedScript(new URL(${JSON.stringify(pathToFileURL(file).href)}), 'list')
console.log(await main())`
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, TMPDIR: tmp, ...env },
  })
  assert.is(child.status, 0, child.stderr)
  return child.stdout.trim()
}

const caches = (tmp: string) =>
  readdirSync(tmp)
    .filter((dir) => dir.startsWith('foundry-compile-cache-'))
    .flatMap((dir) => readdirSync(join(tmp, dir)).map((name) => join(tmp, dir, name)))

test('the first run writes the cache for its build, Node and command; the next runs from it, dynamic imports included', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'foundry-cache-'))
  try {
    const file = program(tmp)
    assert.is(run(file, tmp), `platform ${process.platform} from demo-cli.cjs`)
    const [cache, ...more] = caches(tmp).filter((path) => path.endsWith('.bin'))
    assert.equal(more, [])
    assert.match(cache!, new RegExp(`demo-cli-${BUILD}-${process.version}-${process.arch}-list\\.bin$`))
    const written = readFileSync(cache!)
    assert.is(
      run(file, tmp),
      `platform ${process.platform} from demo-cli.cjs`,
      "from the cache, __import still reaches Node's loader",
    )
    assert.ok(readFileSync(cache!).equals(written), 'an accepted cache is not written again')
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
})

test("a cache V8 rejects is replaced; a new build removes the old build's caches; NODE_DISABLE_COMPILE_CACHE writes none", () => {
  const tmp = mkdtempSync(join(tmpdir(), 'foundry-cache-'))
  try {
    const file = program(tmp)
    run(file, tmp)
    const [cache] = caches(tmp)
    writeFileSync(cache!, 'not a code cache')
    assert.is(run(file, tmp), `platform ${process.platform} from demo-cli.cjs`)
    assert.is.not(readFileSync(cache!, 'utf8'), 'not a code cache', 'rewritten')

    const rebuilt = program(tmp, 'cd'.repeat(16))
    run(rebuilt, tmp)
    assert.equal(
      caches(tmp).map((path) => path.includes('cd'.repeat(16))),
      [true],
      "only the new build's cache is left",
    )

    const quiet = mkdtempSync(join(tmpdir(), 'foundry-cache-'))
    run(program(quiet), quiet, { NODE_DISABLE_COMPILE_CACHE: '1' })
    assert.equal(
      caches(quiet).filter((path) => path.endsWith('.bin')),
      [],
    )
    rmSync(quiet, { recursive: true, force: true })
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
})

test('a script without a build line runs without a cache', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'foundry-cache-'))
  try {
    const file = join(tmp, 'plain.cjs')
    writeFileSync(file, "exports.main = async () => 'plain'\n")
    assert.is(run(file, tmp), 'plain')
    assert.equal(
      caches(tmp).filter((path) => path.endsWith('.bin')),
      [],
    )
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
})

test('a script loads a script beside it with `__load`, linked to its own modules, each through its own cache', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'foundry-cache-'))
  try {
    const file = built(
      tmp,
      'demo-cli.cjs',
      `const shared = { name: 'one kernel' }
exports.main = async () => { const part = __load('on-demand-part.cjs', { 'demo-kernel': () => shared }); return part.same(shared) + ' ' + part.describe() }`,
    )
    built(
      tmp,
      'on-demand-part.cjs',
      `const kernel = require('demo-kernel')
exports.same = (other) => String(kernel === other)
exports.describe = () => kernel.name + ' in ' + require('node:path').basename(__filename)`,
      'ef'.repeat(16),
    )
    assert.is(
      run(file, tmp),
      'true one kernel in on-demand-part.cjs',
      'the part requires the module its loader linked, and Node for the rest',
    )
    assert.equal(
      caches(tmp)
        .map((path) => path.replace(/^.*\//, '').replace(/-[0-9a-f]{32}-.*-list\.bin$/, ''))
        .sort(),
      ['demo-cli', 'on-demand-part'],
    )
    assert.is(run(file, tmp), 'true one kernel in on-demand-part.cjs', 'from their caches')
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
})

test('a script its build marks utf8 is read as UTF-8; an ASCII one as one byte a character', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'foundry-cache-'))
  try {
    assert.is(
      run(built(tmp, 'wide.cjs', "exports.main = async () => 'caf\u00e9 \u2192 ok'", BUILD, true), tmp),
      'caf\u00e9 \u2192 ok',
    )
    assert.is(run(built(tmp, 'narrow.cjs', "exports.main = async () => 'caf\\u00e9'"), tmp), 'caf\u00e9')
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
})

test("commandOf: the first word that is neither a flag nor a flag's value", () => {
  assert.is(commandOf(['--root', 'list', 'search', 'x'], ['--root']), 'search')
  assert.is(commandOf(['--json', 'list']), 'list')
  assert.is(commandOf(['--help']), undefined)
})

test.run()
