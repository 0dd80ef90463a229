#!/usr/bin/env node
// Build what changed, once: every package whose inputs changed since its last build (tsup), in
// dependency order, then the Claude Code plugin folder (scripts/build-plugin.mjs) if its inputs did.
//
// A package's inputs are its src/, bin/ and ui/ (the console's front end) files, package.json,
// tsup.config.ts and tsconfig.json, the root tsup.preset.ts, tsconfig.base.json and pnpm-lock.yaml,
// and the builds (dist/) of the workspace packages it depends on (a bin bundles them). Their content
// hash is kept in a stamp (node_modules/.cache/foundry-build/<package>.json); a package is skipped
// when the stamp matches and every file its package.json `exports`, `bin` and `types` name is built.
// Used by setup, build, demo, bench and test. `--force` rebuilds everything. FOUNDRY_BUILD_JOBS
// (default 2) builds at once.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join, relative } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const force = process.argv.includes('--force')
const STAMPS = join(root, 'node_modules', '.cache', 'foundry-build')
const SHARED = ['tsup.preset.ts', 'tsconfig.base.json', 'pnpm-lock.yaml'].map((file) => join(root, file))
const OWN = ['package.json', 'tsup.config.ts', 'tsconfig.json']
const jobs = Math.max(1, Number(process.env.FOUNDRY_BUILD_JOBS) || Math.min(2, availableParallelism()))
const started = Date.now()

/** Every file below `dir` (none when it is missing), sorted, skipping node_modules and builds (unless `builds`). */
function files(dir, builds = false) {
  if (!existsSync(dir)) return []
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || (!builds && (entry.name === 'dist' || entry.name === 'dist-plugin'))) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...files(path, builds))
    else if (entry.isFile()) out.push(path)
  }
  return out.sort()
}

/** The hash of these files' paths and contents, and of `extra` strings. */
function hashOf(paths, extra = []) {
  const hash = createHash('sha256')
  for (const path of paths)
    hash
      .update(`${relative(root, path)}\0`)
      .update(existsSync(path) ? readFileSync(path) : '(none)')
      .update('\0')
  for (const text of extra) hash.update(`${text}\0`)
  return hash.digest('hex')
}

const readStamp = (name) => {
  try {
    return JSON.parse(readFileSync(join(STAMPS, `${name}.json`), 'utf8')).hash
  } catch {
    return undefined
  }
}
const writeStamp = (name, hash) => {
  mkdirSync(STAMPS, { recursive: true })
  writeFileSync(join(STAMPS, `${name}.json`), `${JSON.stringify({ hash, built: new Date().toISOString() })}\n`)
}

/** The workspace packages with a build script, by package name. */
const packages = new Map()
for (const dir of readdirSync(join(root, 'packages'))) {
  const path = join(root, 'packages', dir)
  if (!existsSync(join(path, 'package.json'))) continue
  const pkg = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'))
  if (!pkg.scripts?.build) continue
  packages.set(pkg.name, { dir, path, pkg })
}
for (const entry of packages.values()) {
  const { pkg } = entry
  const named = Object.keys({
    ...pkg.dependencies,
    ...pkg.peerDependencies,
    ...pkg.optionalDependencies,
    ...pkg.devDependencies,
  })
  entry.deps = named.filter((name) => packages.has(name) && name !== pkg.name)
}

/** Every file the package's exports, bin and types name, present. */
function outputsPresent({ path, pkg }) {
  const targets = []
  const walk = (value) =>
    typeof value === 'string' ? targets.push(value) : value && Object.values(value).forEach(walk)
  walk(pkg.exports)
  walk(pkg.bin)
  if (pkg.types) targets.push(pkg.types)
  return (
    existsSync(join(path, 'dist')) &&
    targets.filter((t) => !t.endsWith('package.json')).every((t) => existsSync(join(path, t)))
  )
}

/** Run a command, its output kept; resolves with the exit code and the output. */
function run(cmd, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('error', (error) => (out += `${error.message}\n`))
    child.on('close', (code) => resolve({ code: code ?? 1, out }))
  })
}

const tsup = join(root, 'node_modules', '.bin', 'tsup')
const builds = new Map() // name → the hash of its dist/, once done
const done = new Map() // name → Promise<boolean> (true when built or up to date)
let built = 0
let failed = false

/** Build `name` once its workspace dependencies are done, unless its stamp says it is up to date. */
function build(name, slots) {
  if (done.has(name)) return done.get(name)
  const entry = packages.get(name)
  const promise = (async () => {
    const ok = await Promise.all(entry.deps.map((dep) => build(dep, slots)))
    if (ok.includes(false)) return false
    const hash = hashOf(
      [
        ...files(join(entry.path, 'src')),
        ...files(join(entry.path, 'bin')),
        ...files(join(entry.path, 'ui')),
        ...OWN.map((f) => join(entry.path, f)),
        ...SHARED,
      ],
      entry.deps.map((dep) => builds.get(dep)),
    )
    // A build's hash covers its dependencies' too: a bin that bundles adapter-fs is rebuilt when adapter-fs changes,
    // even if the packages between them build the same output.
    const finish = () => (
      builds.set(
        name,
        hashOf(
          files(join(entry.path, 'dist'), true),
          entry.deps.map((dep) => builds.get(dep)),
        ),
      ),
      true
    )
    if (!force && readStamp(entry.dir) === hash && outputsPresent(entry)) return finish()
    await slots.take()
    const start = Date.now()
    rmSync(join(STAMPS, `${entry.dir}.json`), { force: true })
    // The package's own build script; plain `tsup` (all of them today) without a pnpm process around it.
    const result =
      entry.pkg.scripts.build === 'tsup'
        ? await run(tsup, [], entry.path)
        : await run(join(root, 'node_modules', '.bin', 'pnpm'), ['run', 'build'], entry.path)
    slots.give()
    const seconds = ((Date.now() - start) / 1000).toFixed(1)
    if (result.code !== 0) {
      failed = true
      console.log(
        `✗ ${entry.dir.padEnd(17)} build failed (exit ${result.code}) in ${seconds} s\n${result.out.trimEnd().split('\n').slice(-30).join('\n')}`,
      )
      return false
    }
    writeStamp(entry.dir, hash)
    built++
    console.log(`✓ ${entry.dir.padEnd(17)} built in ${seconds} s`)
    return finish()
  })()
  done.set(name, promise)
  return promise
}

/** At most `n` builds at once. */
function semaphore(n) {
  const waiting = []
  let free = n
  return {
    take: () => (free > 0 ? (free--, Promise.resolve()) : new Promise((resolve) => waiting.push(resolve))),
    give: () => (waiting.length ? waiting.shift()() : free++),
  }
}

const slots = semaphore(jobs)
await Promise.all([...packages.keys()].map((name) => build(name, slots)))
if (failed) process.exit(1)

// The plugin folder bundles the hooks and mcp bins (and better-sqlite3 when the workspace built it).
const plugin = join(root, 'examples', 'claude-code-plugin')
const sqlite = join(
  root,
  'packages',
  'adapter-sqlite',
  'node_modules',
  'better-sqlite3',
  'build',
  'Release',
  'better_sqlite3.node',
)
const pluginHash = hashOf(
  [...files(plugin), join(root, 'LICENSE'), join(root, 'scripts', 'build-plugin.mjs')],
  [...['@foundry/hooks', '@foundry/mcp'].map((name) => builds.get(name) ?? ''), `sqlite:${existsSync(sqlite)}`],
)
if (
  force ||
  readStamp('claude-code-plugin') !== pluginHash ||
  !existsSync(join(plugin, 'dist-plugin', '.claude-plugin', 'marketplace.json'))
) {
  const result = await run(process.execPath, [join(root, 'scripts', 'build-plugin.mjs')], root)
  if (result.code !== 0) {
    console.log(`✗ plugin            scripts/build-plugin.mjs failed (exit ${result.code})\n${result.out.trimEnd()}`)
    process.exit(1)
  }
  writeStamp('claude-code-plugin', pluginHash)
  built++
  console.log(`✓ plugin            ${result.out.trim()}`)
}
const seconds = ((Date.now() - started) / 1000).toFixed(1)
console.log(
  built
    ? `built ${built} of ${packages.size + 1} in ${seconds} s; the rest were up to date`
    : `up to date: ${packages.size} packages and the plugin`,
)
