import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

/**
 * The Claude Code plugin as a user adds it: built by scripts/build-plugin.mjs (what `npm run setup`
 * runs), copied to a temporary folder outside the repository, then every hook its hooks.json declares
 * run from there with the JSON Claude Code sends (examples/claude-code-plugin/main.mjs given the copy),
 * and the server its .mcp.json names driven by the SDK Client. Needs the packages built.
 */
const REPO = fileURLToPath(new URL('../../../', import.meta.url))
const copy = suite('the built Claude Code plugin works from a copy outside the repository')
let work = ''
let plugin = ''

copy.before(() => {
  work = mkdtempSync(join(tmpdir(), 'foundry-plugin-copy-'))
  const build = spawnSync(process.execPath, [join(REPO, 'scripts', 'build-plugin.mjs')], { encoding: 'utf8' })
  assert.is(build.status, 0, build.stderr)
  cpSync(join(REPO, 'examples', 'claude-code-plugin', 'dist-plugin'), join(work, 'marketplace'), { recursive: true })
  plugin = join(work, 'marketplace', 'foundry')
})
copy.after(() => rmSync(work, { recursive: true, force: true }))

/** Every path under `dir`, walking real folders only. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    const stat = lstatSync(path)
    return stat.isDirectory() ? [path, ...walk(path)] : [path]
  })
}

copy('self-contained: no symlink, no node_modules path in hooks.json or .mcp.json, and a marketplace naming it', () => {
  const links = walk(join(work, 'marketplace')).filter((path) => lstatSync(path).isSymbolicLink())
  assert.equal(links, [])
  for (const file of ['hooks/hooks.json', '.mcp.json']) {
    const text = readFileSync(join(plugin, file), 'utf8')
    assert.not.match(text, 'node_modules', file)
    assert.match(text, '${CLAUDE_PLUGIN_ROOT}/bin/', file)
  }
  const marketplace = JSON.parse(readFileSync(join(work, 'marketplace', '.claude-plugin', 'marketplace.json'), 'utf8'))
  assert.equal(
    marketplace.plugins.map((entry: { name: string; source: string }) => [entry.name, entry.source]),
    [['foundry', './foundry']],
  )
  assert.ok(existsSync(join(plugin, '.claude-plugin', 'plugin.json')))
})

copy(
  'every hook it declares runs from the copy with the JSON Claude Code sends, and its server answers initialize',
  () => {
    const run = spawnSync(process.execPath, [join(REPO, 'examples', 'claude-code-plugin', 'main.mjs'), plugin], {
      cwd: work,
      encoding: 'utf8',
      timeout: 120_000,
    })
    assert.is(run.status, 0, run.stdout + run.stderr)
    assert.match(run.stdout, /hooks\.json: 5 events, \d+ hook runs/)
    assert.match(run.stdout, '${CLAUDE_PLUGIN_ROOT}/bin/mcp/foundry.cjs mcp" answers initialize')
    assert.match(run.stdout, 'claude-code-plugin: ok')
  },
)

copy(
  'the MCP server .mcp.json names, started from the copy, answers the SDK Client on fs and SQLite projects',
  async () => {
    const server = JSON.parse(readFileSync(join(plugin, '.mcp.json'), 'utf8')).mcpServers.foundry
    const args = (server.args as string[]).map((arg) => arg.replaceAll('${CLAUDE_PLUGIN_ROOT}', plugin))
    const { FOUNDRY_ROOT, CLAUDE_PROJECT_DIR, FOUNDRY_HOOK_SERVER, ...env } = process.env
    for (const storage of existsSync(join(plugin, 'node_modules', 'better-sqlite3')) ? ['fs', 'sqlite'] : ['fs']) {
      const project = join(work, `project-${storage}`)
      mkdirSync(project)
      const script = args.find((arg) => !arg.startsWith('--'))!
      const init = spawnSync(process.execPath, [script, 'init', '--storage', storage], {
        cwd: project,
        encoding: 'utf8',
      })
      assert.is(init.status, 0, init.stderr)
      const transport = new StdioClientTransport({
        command: process.execPath,
        args,
        cwd: project,
        env: { ...env, CLAUDE_PLUGIN_ROOT: plugin } as Record<string, string>,
        stderr: 'pipe',
      })
      const client = new Client({ name: 'plugin-copy-test', version: '0' })
      await client.connect(transport)
      try {
        await client.callTool({
          name: 'memory_write',
          arguments: {
            type: 'convention',
            title: `Plugin copies keep their bins on ${storage}`,
            body: 'The plugin folder holds bundled bins.',
          },
        })
        const found = (await client.callTool({ name: 'memory_search', arguments: { query: 'plugin bins' } })) as {
          content: Array<{ text?: string }>
        }
        assert.match(
          found.content.map((part) => part.text ?? '').join('\n'),
          `Plugin copies keep their bins on ${storage}`,
        )
      } finally {
        await client.close()
      }
    }
  },
)

copy.run()
