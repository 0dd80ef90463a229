#!/usr/bin/env node
// The package boundaries: kernel ← adapters ← project ← {server} ← {mcp, hooks, marbles, ingest, console} ← apps.
// Reads every packages/*/package.json (dependencies of every kind) and every import of @foundry/*
// in packages/*/src, and fails naming each edge the layers forbid: a consumer depending on another
// consumer or on an adapter, the kit on a consumer, anything on an app, a src file reaching into
// another package by a relative path. Apps may depend on anything. `node scripts/check-boundaries.mjs [root]`.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'

/** Each package's layer, by name; a package not listed is an error (say where it belongs). */
const LAYERS = [
  [/^@foundry\/kernel$/, 'kernel'],
  [/^@foundry\/adapter-/, 'adapter'],
  [/^@foundry\/retriever-/, 'adapter'],
  [/^@foundry\/project$/, 'root'],
  [/^@foundry\/server$/, 'kit'],
  [/^@foundry\/(mcp|hooks|marbles|ingest|console)$/, 'consumer'],
  [/^@foundry\/cli$/, 'app'],
]

/** The layers each layer may depend on. */
const MAY_USE = {
  kernel: [],
  adapter: ['kernel'],
  root: ['kernel', 'adapter'],
  kit: ['kernel', 'root'],
  consumer: ['kernel', 'root', 'kit'],
  app: ['kernel', 'adapter', 'root', 'kit', 'consumer', 'app'],
}
/** A test may start an adapter's test server (an embedded PostgreSQL): a consumer's devDependency on an adapter is allowed. */
const DEV_MAY_USE = { consumer: [...MAY_USE.consumer, 'adapter'] }
const FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies']
const IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\.resolve\s*\(\s*)["']((@foundry\/[^/"']+)[^"']*|\.\.?\/[^"']*)["']/g

const layerOf = (name) => LAYERS.find(([pattern]) => pattern.test(name))?.[1]

/** Every forbidden edge under `root`, one line each (empty when the boundaries hold). */
export function checkBoundaries(root) {
  const problems = []
  const dir = join(root, 'packages')
  const packages = readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'package.json')))
    .map((name) => ({
      dir: join(dir, name),
      manifest: JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8')),
    }))
  for (const { dir: home, manifest } of packages) {
    const name = manifest.name
    const layer = layerOf(name)
    if (!layer) {
      problems.push(
        `${name}: no layer; add it to LAYERS in scripts/check-boundaries.mjs (kernel, adapter, root, kit, consumer or app)`,
      )
      continue
    }
    const check = (target, where, dev = false) => {
      if (!target.startsWith('@foundry/') || target === name) return
      const to = layerOf(target)
      const allowed = (dev && DEV_MAY_USE[layer]) || MAY_USE[layer]
      if (!to) problems.push(`${name} → ${target} (${where}): ${target} has no layer; add it to LAYERS`)
      else if (!allowed.includes(to))
        problems.push(
          `${name} → ${target} (${where}): a ${layer} may not depend on a${/^[aeiou]/.test(to) ? 'n' : ''} ${to}; ${hint(layer, to)}`,
        )
    }
    for (const field of FIELDS)
      for (const target of Object.keys(manifest[field] ?? {}))
        check(target, `package.json ${field}`, field === 'devDependencies')
    for (const file of sourceFiles(join(home, 'src'))) {
      const text = readFileSync(file, 'utf8')
      const shown = relative(root, file)
      for (const [, spec, pkg] of text.matchAll(IMPORT)) {
        if (pkg) check(pkg, shown)
        else if (!resolve(file, '..', spec).startsWith(home + sep))
          problems.push(
            `${name} → ${spec} (${shown}): a relative import out of the package; import the package by name`,
          )
      }
    }
  }
  return problems
}

function hint(layer, to) {
  if (to === 'adapter') return 'open adapters through @foundry/project'
  if (to === 'consumer' || to === 'app')
    return layer === 'consumer' || layer === 'kit'
      ? 'move what both need into @foundry/server or the kernel, or compose them in an app'
      : 'nothing below the consumers may use them'
  return 'a package uses only the layers below it'
}

function sourceFiles(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|mts|js|mjs)$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => join(dir, file))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(process.argv[2] ?? new URL('..', import.meta.url).pathname)
  const problems = checkBoundaries(root)
  for (const line of problems) console.error(`boundaries: ${line}`)
  if (problems.length) process.exit(1)
  console.log('boundaries: no consumer imports another consumer or an adapter; nothing below an app imports one')
}
