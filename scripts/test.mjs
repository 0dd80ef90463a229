#!/usr/bin/env node
// Every gate after the build, once: the typecheck, the lint, the exports and declarations checks, every package's uvu tests and
// every example. Jobs run in a small pool (2 workers, FOUNDRY_TEST_JOBS to change), each one's output
// kept and printed whole when it ends. The last line is the totals: `N passed, N failed`; exit
// non-zero on any failure. `node scripts/test.mjs <package|example …>` runs those tests only.
// The build is `npm run setup`'s (or `npm run build`'s), reused: scripts/build.mjs first rebuilds only
// what changed since (nothing, right after setup).
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('-'))
const uvu = join(root, 'node_modules', 'uvu', 'bin.js')
const biome = join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome')
const pnpm = join(root, 'node_modules', '.bin', 'pnpm')
const workers = Math.max(1, Number(process.env.FOUNDRY_TEST_JOBS) || Math.min(2, availableParallelism()))
const started = Date.now()

/** Run a child process, its output kept (not streamed), resolving with the exit code, the output and the time taken. */
function run(cmd, args, cwd) {
  const start = Date.now()
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('error', (error) => (out += `${error.message}\n`))
    child.on('close', (code) => resolve({ code: code ?? 1, out, seconds: (Date.now() - start) / 1000 }))
  })
}

const names = readdirSync(join(root, 'packages')).filter((name) => existsSync(join(root, 'packages', name, 'test')))
const packages = names.filter((name) => !only.length || only.some((o) => name === o || name.includes(o)))
const allExamples = readdirSync(join(root, 'examples')).filter((name) =>
  existsSync(join(root, 'examples', name, 'main.mjs')),
)
const examples = allExamples.filter((name) => !only.length || only.includes('examples') || only.includes(name))
const unknown = only.filter(
  (o) => o !== 'examples' && !names.some((name) => name === o || name.includes(o)) && !allExamples.includes(o),
)
if (unknown.length) {
  console.error(
    `error: no package or example named ${unknown.join(', ')} (packages: ${names.join(', ')}; examples: ${allExamples.join(', ')})`,
  )
  process.exit(2)
}

// The build is setup's; only what changed since is built again (nothing, right after setup).
const build = await run(process.execPath, [join(root, 'scripts', 'build.mjs')], root)
console.log(build.out.trimEnd().split('\n').slice(-30).join('\n'))
if (build.code !== 0) {
  console.log(`\n0 passed, 1 failed`)
  process.exit(1)
}

/**
 * The jobs, longest first so two workers finish together. A gate (typecheck, exports) counts one
 * failure when it fails and nothing when it passes, so the totals count tests and examples as before.
 */
const gates = only.length
  ? []
  : [
      {
        title: 'typecheck',
        gate: true,
        start: () =>
          run(
            pnpm,
            ['-r', '--no-bail', '--workspace-concurrency=1', '--filter', './packages/*', 'run', 'typecheck'],
            root,
          ),
      },
      // Lint and format in one pass (Biome, biome.json): `npx biome check --write` fixes most of what it reports.
      {
        title: 'lint',
        gate: true,
        start: () => run(process.execPath, [biome, 'ci', '--reporter=summary', '--colors=off'], root),
      },
      {
        title: 'exports',
        gate: true,
        start: () => run(process.execPath, [join(root, 'scripts', 'check-exports.mjs')], root),
      },
      { title: 'boundaries', gate: true, start: boundaries },
      // The built .d.ts files type-check as a user's project imports them (skipLibCheck off).
      {
        title: 'declarations',
        gate: true,
        start: () => run(process.execPath, [join(root, 'scripts', 'check-types.mjs')], root),
      },
      // Every public name is reviewed: a change to a package's surface must come with its api/ report.
      {
        title: 'api report',
        gate: true,
        start: () => run(process.execPath, [join(root, 'scripts', 'api-report.mjs'), '--check'], root),
      },
      // docs/CONFIG.md is generated from the schemas: a key added without regenerating it fails here.
      {
        title: 'config reference',
        gate: true,
        start: () => run(process.execPath, [join(root, 'scripts', 'config-reference.mjs'), '--check'], root),
      },
    ]
/** The package boundaries (check-boundaries.mjs), after its own test on fixture trees: one gate. */
async function boundaries() {
  const self = await run(process.execPath, [uvu, 'scripts', 'check-boundaries\\.test\\.mjs$'], root)
  if (self.code !== 0) return self
  const check = await run(process.execPath, [join(root, 'scripts', 'check-boundaries.mjs')], root)
  return { ...check, out: self.out + check.out, seconds: self.seconds + check.seconds }
}
const LONGEST = ['foundry', 'adapter-postgres', 'marbles', 'hooks', 'adapter-fs', 'adapter-sqlite', 'kernel', 'project']
const rank = (name) => (LONGEST.includes(name) ? LONGEST.indexOf(name) : LONGEST.length)
const tests = [...packages]
  .sort((a, b) => rank(a) - rank(b))
  .map((name) => ({
    title: `packages/${name}`,
    start: () => run(process.execPath, [uvu, '-r', 'tsx', 'test', '\\.test\\.ts$'], join(root, 'packages', name)),
  }))
const runs = examples.map((name) => ({
  title: `examples/${name}`,
  example: name,
  start: () => run(process.execPath, ['main.mjs'], join(root, 'examples', name)),
}))
const jobs = [...tests.slice(0, 2), ...gates, ...tests.slice(2), ...runs]

let passed = 0
let failed = 0
const times = []

function record(job, { code, out, seconds }) {
  console.log(`\n== ${job.title} (${seconds.toFixed(1)} s) ==`)
  process.stdout.write(out.endsWith('\n') || !out ? out : `${out}\n`)
  times.push(`${job.title} ${seconds.toFixed(0)} s`)
  if (job.gate) {
    if (code !== 0) failed += 1
    return
  }
  if (job.example) {
    if (code === 0) passed += 1
    else failed += 1
    console.log(code === 0 ? `example ${job.example}: ok` : `example ${job.example}: FAILED (exit ${code})`)
    return
  }
  const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? NaN)
  const ok = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? NaN)
  const skipped = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0)
  if (Number.isNaN(total) || Number.isNaN(ok)) {
    failed += 1 // the runner itself crashed before reporting
    return
  }
  passed += ok
  failed += total - ok - skipped
  if (code !== 0 && total - ok - skipped === 0) failed += 1
}

const queue = [...jobs]
await Promise.all(
  Array.from({ length: Math.min(workers, queue.length) }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) record(job, await job.start())
  }),
)

console.log(`\n${workers} workers, ${((Date.now() - started) / 1000).toFixed(0)} s: ${times.join(', ')}`)
console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
