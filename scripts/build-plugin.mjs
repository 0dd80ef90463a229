#!/usr/bin/env node
// Assemble the Claude Code plugin of examples/claude-code-plugin into a folder that works wherever it
// is copied: a local marketplace (`.claude-plugin/marketplace.json`) holding the plugin `foundry/`,
// whose hooks.json and .mcp.json name the bundled bins copied into it through ${CLAUDE_PLUGIN_ROOT}.
// No node_modules symlink: the bins bundle everything but better-sqlite3, which is copied in (the
// native module built for this machine) when the workspace has it, so SQLite projects work too.
// Needs the packages built. `--out DIR` (default examples/claude-code-plugin/dist-plugin).
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const source = join(root, 'examples', 'claude-code-plugin')
const at = process.argv.indexOf('--out')
const out = resolve(at > 0 ? process.argv[at + 1] : join(source, 'dist-plugin'))
const plugin = join(out, 'foundry')

const bins = {
  hooks: join(root, 'packages', 'hooks', 'dist', 'bin'),
  mcp: join(root, 'packages', 'foundry', 'dist', 'bin'),
}
for (const [_name, dir] of Object.entries(bins))
  if (!existsSync(dir)) {
    console.error(`error: ${dir} is not built: run npm run build (or npx tsup in ${dirname(dirname(dir))}) first`)
    process.exit(1)
  }

rmSync(out, { recursive: true, force: true })
mkdirSync(plugin, { recursive: true })
for (const part of ['.claude-plugin', 'agents', 'skills', 'hooks', '.mcp.json', 'README.md'])
  if (existsSync(join(source, part))) cpSync(join(source, part), join(plugin, part), { recursive: true })
cpSync(join(root, 'LICENSE'), join(plugin, 'LICENSE'))
for (const [name, dir] of Object.entries(bins)) cpSync(dir, join(plugin, 'bin', name), { recursive: true })
// The bundles are ES modules in .js files.
writeFileSync(
  join(plugin, 'package.json'),
  `${JSON.stringify({ name: 'foundry-claude-code-plugin', private: true, type: 'module' }, null, 2)}\n`,
)

// The workspace paths, rewritten to the copied bins.
const rewrite = (file) => {
  const text = readFileSync(file, 'utf8')
    .replaceAll('${CLAUDE_PLUGIN_ROOT}/node_modules/@foundry/hooks/dist/bin/', '${CLAUDE_PLUGIN_ROOT}/bin/hooks/')
    .replaceAll('${CLAUDE_PLUGIN_ROOT}/node_modules/@foundry/cli/dist/bin/', '${CLAUDE_PLUGIN_ROOT}/bin/mcp/')
  if (text.includes('node_modules')) throw new Error(`${file} still names node_modules after the rewrite`)
  writeFileSync(file, text)
}
rewrite(join(plugin, 'hooks', 'hooks.json'))
rewrite(join(plugin, '.mcp.json'))

// better-sqlite3 and what it requires at run time, as real folders.
let sqlite = 'without better-sqlite3 (not built in the workspace): storage "fs" only'
try {
  const require = createRequire(join(root, 'packages', 'adapter-sqlite', 'package.json'))
  const dir = dirname(realpathSync(require.resolve('better-sqlite3/package.json')))
  if (existsSync(join(dir, 'build', 'Release', 'better_sqlite3.node'))) {
    const target = join(plugin, 'node_modules', 'better-sqlite3')
    for (const part of ['package.json', 'lib', 'LICENSE', join('build', 'Release', 'better_sqlite3.node')])
      if (existsSync(join(dir, part)))
        cpSync(join(dir, part), join(target, part), { recursive: true, dereference: true })
    const fromSqlite = createRequire(join(dir, 'package.json'))
    for (const dep of ['bindings', 'file-uri-to-path']) {
      const depDir = dirname(realpathSync(fromSqlite.resolve(`${dep}/package.json`, { paths: [dir, dirname(dir)] })))
      cpSync(depDir, join(plugin, 'node_modules', dep), { recursive: true, dereference: true })
    }
    sqlite = `with better-sqlite3 ${JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version} built for ${process.platform}-${process.arch}, Node ${process.versions.modules} ABI`
  }
} catch {
  // No better-sqlite3 in the workspace: the plugin works on fs projects.
}

const manifest = JSON.parse(readFileSync(join(source, '.claude-plugin', 'plugin.json'), 'utf8'))
mkdirSync(join(out, '.claude-plugin'), { recursive: true })
const marketplace = {
  name: 'foundry-local',
  owner: { name: manifest.author?.name ?? 'Foundry maintainers' },
  metadata: { description: 'Foundry for Claude Code, built from this clone' },
  plugins: [{ name: manifest.name, source: './foundry', description: manifest.description, version: manifest.version }],
}
writeFileSync(join(out, '.claude-plugin', 'marketplace.json'), `${JSON.stringify(marketplace, null, 2)}\n`)
console.log(`plugin: ${plugin} (${sqlite}); marketplace: ${out}`)
