#!/usr/bin/env node
// The built declarations type-check as a user's project sees them: a scratch project imports every entry point
// through its package name (so the `exports` map and its `types` conditions are what resolves), and `tsc` checks the
// `.d.ts` files with `skipLibCheck` off. Catches a declaration that names an unexported or unbuilt type, a `types`
// condition pointing at the wrong file, or a declaration that only compiles with the repo's own tsconfig.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const scratch = join(root, 'node_modules', '.cache', 'check-types')
rmSync(scratch, { recursive: true, force: true })
mkdirSync(join(scratch, 'node_modules', '@foundry'), { recursive: true })

const lines = []
for (const dir of readdirSync(join(root, 'packages'))) {
  const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'))
  symlinkSync(join(root, 'packages', dir), join(scratch, 'node_modules', pkg.name))
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (typeof target !== 'object' || !target.types) continue
    const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`
    lines.push(`export type * as e${lines.length} from '${specifier}'`)
  }
}
writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'check-types', private: true, type: 'module' }))
writeFileSync(join(scratch, 'entries.ts'), `${lines.join('\n')}\n`)
writeFileSync(
  join(scratch, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules', '@types')],
    },
    files: ['entries.ts'],
  }),
)

const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc')
const result = spawnSync(process.execPath, [tsc, '-p', scratch], { encoding: 'utf8' })
if (result.status !== 0) {
  process.stderr.write(result.stdout + result.stderr)
  console.error(`types: the built declarations of ${lines.length} entry points do not type-check (above)`)
  process.exit(1)
}
console.log(`types: the built declarations of ${lines.length} entry points type-check with skipLibCheck off`)
