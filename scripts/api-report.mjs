#!/usr/bin/env node
// The public surface of every package, one file a package in api/: each entry point of its
// `exports` map and every name it exports (types and values), read from the built .d.ts with the
// TypeScript checker. `node scripts/api-report.mjs` writes the reports; `--check` (a gate of npm
// test) fails when the built surface differs from the committed one: a public name is added or
// removed on purpose, by writing the report again and committing it with the change.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'

const root = new URL('..', import.meta.url).pathname
const check = process.argv.includes('--check')
const out = join(root, 'api')
const packages = readdirSync(join(root, 'packages'))
  .filter((name) => existsSync(join(root, 'packages', name, 'package.json')))
  .sort()

const entries = []
for (const name of packages) {
  const dir = join(root, 'packages', name)
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  for (const [sub, target] of Object.entries(pkg.exports ?? {})) {
    if (typeof target !== 'object' || !target.types) continue
    entries.push({ pkg: pkg.name, name, sub, file: join(dir, target.types) })
  }
}
const missing = entries.filter((e) => !existsSync(e.file))
if (missing.length) {
  console.error(`api: not built: ${missing.map((e) => e.file).join(', ')} (run npm run build)`)
  process.exit(1)
}
const program = ts.createProgram(
  entries.map((e) => e.file),
  {
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  },
)
const checker = program.getTypeChecker()

const reports = new Map()
let total = 0
for (const entry of entries) {
  const source = program.getSourceFile(entry.file)
  const symbol = source && checker.getSymbolAtLocation(source)
  const names = symbol
    ? checker
        .getExportsOfModule(symbol)
        .map((s) => s.name)
        .sort()
    : []
  total += names.length
  const lines = reports.get(entry.name) ?? [`# ${entry.pkg}`, '']
  lines.push(`## ${entry.sub} (${names.length})`, ...names, '')
  reports.set(entry.name, lines)
}

const differ = []
if (!check) mkdirSync(out, { recursive: true })
for (const [name, lines] of reports) {
  const file = join(out, `${name}.api.md`)
  const text = lines.join('\n')
  if (check) {
    if (!existsSync(file) || readFileSync(file, 'utf8') !== text) differ.push(`api/${name}.api.md`)
  } else writeFileSync(file, text)
}
if (check && differ.length) {
  console.error(
    `api: the public surface changed in ${differ.join(', ')}: review it, then run node scripts/api-report.mjs and commit the reports`,
  )
  process.exit(1)
}
console.log(
  `api: ${total} exported names in ${entries.length} entry points of ${reports.size} packages${check ? ', as reviewed' : ' (reports written to api/)'}`,
)
