#!/usr/bin/env node
// Pack every public package as `pnpm publish` would (workspace: ranges rewritten to versions) into
// ./packs, and print how to install them into a project with plain npm. Needs the packages built
// (`npm run setup`). `--out DIR` packs elsewhere.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const at = process.argv.indexOf('--out')
const out = resolve(at > 0 ? process.argv[at + 1] : join(root, 'packs'))
const pnpm = join(root, 'node_modules', '.bin', 'pnpm')

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
for (const name of readdirSync(join(root, 'packages'))) {
  const dir = join(root, 'packages', name)
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  if (pkg.private) continue
  if (!existsSync(join(dir, 'dist'))) {
    console.error(`error: ${pkg.name} is not built: run npm run setup (or npm run build) first`)
    process.exit(1)
  }
  const run = spawnSync(pnpm, ['pack', '--pack-destination', out], { cwd: dir, encoding: 'utf8' })
  if (run.status !== 0) {
    console.error(`error: pnpm pack ${pkg.name}: ${(run.stderr || run.stdout).trim().split('\n').at(-1)}`)
    process.exit(1)
  }
}
const tarballs = readdirSync(out).filter((file) => file.endsWith('.tgz'))
console.log(`${tarballs.length} packages in ${out}: ${tarballs.join(', ')}`)
console.log(`install them in your project: npm i -D ${join(out, '*.tgz')}   then: npx foundry init`)
