#!/usr/bin/env node
// Run every package's uvu tests and every example, then print the totals on the last line:
// `N passed, N failed`. Exits non-zero on any failure.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const only = process.argv.slice(2)
const uvu = join(root, 'node_modules', 'uvu', 'bin.js')
let passed = 0
let failed = 0

function run(cmd, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } })
    let out = ''
    child.stdout.on('data', (d) => ((out += d), process.stdout.write(d)))
    child.stderr.on('data', (d) => ((out += d), process.stderr.write(d)))
    child.on('close', (code) => resolve({ code, out }))
  })
}

const packages = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name))
  .filter((dir) => existsSync(join(dir, 'test')) && (!only.length || only.some((o) => dir.includes(o))))

for (const dir of packages) {
  console.log(`\n== ${dir.slice(root.length)} ==`)
  const { code, out } = await run(process.execPath, [uvu, '-r', 'tsx', 'test', '\\.test\\.ts$'], dir)
  const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? NaN)
  const ok = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? NaN)
  const skipped = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0)
  if (Number.isNaN(total) || Number.isNaN(ok)) {
    failed += 1 // the runner itself crashed before reporting
    continue
  }
  passed += ok
  failed += total - ok - skipped
  if (code !== 0 && total - ok - skipped === 0) failed += 1
}

const examples = existsSync(join(root, 'examples'))
  ? readdirSync(join(root, 'examples')).filter((name) => existsSync(join(root, 'examples', name, 'main.mjs')) && (!only.length || only.includes('examples') || only.includes(name)))
  : []
for (const name of examples) {
  console.log(`\n== examples/${name} ==`)
  const { code } = await run(process.execPath, ['main.mjs'], join(root, 'examples', name))
  if (code === 0) passed += 1
  else failed += 1
  console.log(code === 0 ? `example ${name}: ok` : `example ${name}: FAILED (exit ${code})`)
}

console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
