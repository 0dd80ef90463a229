#!/usr/bin/env node
// Install and build the workspace on a machine that has only Node 20 and npm: the pinned pnpm comes
// through npx, the native module (better-sqlite3) builds against the headers installed beside this
// Node, then every package and the Claude Code plugin are built (scripts/build.mjs: only what changed
// since the last build, so a second setup builds nothing). The noise goes to .setup.log; the terminal
// gets one line a step with its time, then `ready`, or on failure the log's last lines and the likely
// cause. `--no-frozen` lets pnpm update the lockfile.
import { spawn } from 'node:child_process'
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const LOG = join(root, '.setup.log')
const env = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' }
const prefix = dirname(dirname(process.execPath))
if (!env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node.h'))) env.npm_config_nodedir = prefix

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`error: Node ${process.versions.node} is too old: Foundry needs Node >=20.19 (https://nodejs.org)`)
  process.exit(1)
}

const frozen = process.argv.includes('--no-frozen') ? [] : ['--frozen-lockfile']
const STEPS = [
  {
    name: 'install',
    what: `pnpm 12.4.2 install ${frozen.join(' ')}`.trim(),
    cmd: 'npx',
    args: ['-y', 'pnpm@12.4.2', 'install', ...frozen],
  },
  {
    name: 'build',
    what: 'the packages and the Claude Code plugin that changed',
    cmd: process.execPath,
    args: [join(root, 'scripts', 'build.mjs')],
  },
]

let last = '' // the step's last line of output, shown after a build
/** Run one step, its output appended to the log; resolves with the exit code. */
function step({ name, cmd, args }) {
  last = ''
  appendFileSync(LOG, `\n== ${name}: ${[cmd, ...args].join(' ')}\n`)
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env })
    const write = (d) => appendFileSync(LOG, d)
    child.stdout.on('data', (d) => (write(d), (last = String(d).trim().split('\n').at(-1) ?? last)))
    child.stderr.on('data', write)
    child.on('error', (error) => (write(`${error.message}\n`), resolve(1)))
    child.on('close', (code) => resolve(code ?? 1))
  })
}

/** What most likely went wrong, from the log, and how to fix it. */
function likelyCause(log) {
  if (
    /better-sqlite3/.test(log) &&
    /gyp ERR|node-gyp|not found: (make|g\+\+|python)|make: not found|g\+\+: not found|No (C|C\+\+) compiler|find Python/i.test(
      log,
    )
  )
    return 'better-sqlite3 compiles from source and needs python3, make and a C++ compiler: `sudo apt-get install -y python3 make g++` (Debian, Ubuntu), `xcode-select --install` (macOS), then `npm run setup` again'
  if (/spawn npx ENOENT/.test(log))
    return 'npx is not on the PATH: it comes with npm (install Node 20.19 or later from https://nodejs.org)'
  if (/ERR_PNPM_OUTDATED_LOCKFILE|Cannot install with "frozen-lockfile"/.test(log))
    return 'pnpm-lock.yaml does not match a package.json: `npm run setup -- --no-frozen` updates it'
  if (/ENOTFOUND|ETIMEDOUT|ECONNREFUSED|ECONNRESET|EAI_AGAIN|ERR_SOCKET/.test(log))
    return 'the npm registry cannot be reached: check the network or the proxy (npm config get registry)'
  if (/ENOSPC/.test(log)) return 'the disk is full'
  if (/error TS\d+|Build failed|ERROR:/.test(log))
    return 'a package does not compile: the TypeScript error is in the lines above'
  return 'see the log'
}

writeFileSync(LOG, `npm run setup, ${new Date().toISOString()}, Node ${process.versions.node}\n`)
const started = Date.now()
for (const s of STEPS) {
  const start = Date.now()
  const code = await step(s)
  const seconds = ((Date.now() - start) / 1000).toFixed(1)
  if (code !== 0) {
    console.log(`✗ ${s.name.padEnd(8)} ${s.what}  ${seconds} s (exit ${code})`)
    const log = readFileSync(LOG, 'utf8')
    const last = log.trimEnd().split('\n').slice(-20)
    console.log(`\nthe last lines of .setup.log:\n${last.map((line) => `  ${line}`).join('\n')}\n`)
    const output = log
      .slice(log.lastIndexOf(`\n== ${s.name}:`))
      .split('\n')
      .slice(2)
      .join('\n') // after the step's header line
    console.log(`likely cause: ${likelyCause(output)}`)
    process.exit(1)
  }
  console.log(`✓ ${s.name.padEnd(8)} ${s.what}  ${seconds} s${s.name === 'build' && last ? ` (${last})` : ''}`)
}
console.log(
  `ready in ${((Date.now() - started) / 1000).toFixed(0)} s: try \`npm run demo\` (or \`npm test\`); the full output is in .setup.log`,
)
