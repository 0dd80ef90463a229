#!/usr/bin/env node
// Every path a package's `exports`, `bin` and `types` name exists in the build: what users import is there.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
let missing = 0
for (const name of readdirSync(join(root, 'packages'))) {
  const dir = join(root, 'packages', name)
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const targets = []
  const walk = (value) =>
    typeof value === 'string' ? targets.push(value) : value && Object.values(value).forEach(walk)
  walk(pkg.exports)
  walk(pkg.bin)
  if (pkg.types) targets.push(pkg.types)
  for (const target of targets) {
    if (!existsSync(join(dir, target))) {
      console.error(`${pkg.name}: ${target} is declared but not built`)
      missing++
    }
  }
}
if (missing) process.exit(1)
console.log('exports: every declared entry point is built')
