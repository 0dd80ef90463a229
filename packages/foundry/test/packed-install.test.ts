import { spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

/**
 * What a user gets from npm: every public package packed with `pnpm pack` (as `pnpm publish` would),
 * the tarballs installed with plain `npm` into an empty folder outside the workspace (registry
 * dependencies from the registry), then the installed `foundry` and `foundry-hook` bins run there.
 * The install leaves out optional dependencies, so it also shows Foundry working without
 * better-sqlite3; the native module is then added and SQLite opens. Needs the packages built.
 */
const REPO = fileURLToPath(new URL('../../../', import.meta.url))
const PUBLIC = [
  'kernel',
  'adapter-fs',
  'adapter-sqlite',
  'adapter-postgres',
  'retriever-minisearch',
  'project',
  'server',
  'hooks',
  'mcp',
  'console',
  'ingest',
  'foundry',
  'marbles',
]
const PNPM = join(REPO, 'node_modules', '.bin', 'pnpm')
const NPM_TIMEOUT = 240_000

const packed = suite('packed packages install with npm outside the workspace')
let work = ''
let app = ''
const tarballs: string[] = []

packed.before(() => {
  work = mkdtempSync(join(tmpdir(), 'foundry-packed-'))
  const packs = join(work, 'packs')
  mkdirSync(packs)
  for (const name of PUBLIC) {
    const run = spawnSync(PNPM, ['pack', '--pack-destination', packs], {
      cwd: join(REPO, 'packages', name),
      encoding: 'utf8',
    })
    assert.is(run.status, 0, `pnpm pack ${name}: ${run.stderr}`)
  }
  tarballs.push(...readdirSync(packs).map((file) => join(packs, file)))
  app = join(work, 'app')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true }))
  const install = spawnSync(
    'npm',
    ['install', '--omit=optional', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=warn', ...tarballs],
    {
      cwd: app,
      encoding: 'utf8',
      timeout: NPM_TIMEOUT,
    },
  )
  assert.is(install.status, 0, `npm install of the tarballs: ${install.stderr}`)
  assert.not.match(install.stderr, /EBADENGINE/, `every package installed supports this Node: ${install.stderr}`)
})
packed.after(() => rmSync(work, { recursive: true, force: true }))

/** A file of a tarball, read with tar (no dependency). */
function fromTarball(tarball: string, file: string): string {
  const run = spawnSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8' })
  assert.is(run.status, 0, `${tarball} holds package/${file}`)
  return run.stdout
}

packed(
  'every tarball is publishable: no workspace: range, and files, bin, exports, types, engines, licence and README',
  () => {
    assert.is(tarballs.length, PUBLIC.length)
    for (const tarball of tarballs) {
      const manifest = fromTarball(tarball, 'package.json')
      assert.not.match(manifest, 'workspace:', `${tarball} still names a workspace: range`)
      const pkg = JSON.parse(manifest)
      assert.ok(pkg.files?.length, `${pkg.name}: files`)
      assert.ok(pkg.exports?.['.'], `${pkg.name}: exports`)
      assert.ok(pkg.types, `${pkg.name}: types`)
      assert.is(pkg.engines?.node, '>=20.19', `${pkg.name}: engines`)
      assert.is(pkg.license, 'MIT', `${pkg.name}: license`)
      assert.is(pkg.dependencies?.['better-sqlite3'], undefined, `${pkg.name}: better-sqlite3 is optional`)
      assert.match(fromTarball(tarball, 'LICENSE'), 'MIT License')
      assert.ok(fromTarball(tarball, 'README.md').length > 100, `${pkg.name}: README`)
      if (['@foundry/cli', '@foundry/hooks'].includes(pkg.name))
        assert.ok(pkg.bin?.['foundry-hook'], `${pkg.name}: the foundry-hook bin`)
    }
    assert.not.ok(
      existsSync(join(app, 'node_modules', 'better-sqlite3')),
      'installed without the optional native module',
    )
  },
)

/** An installed bin, run as a user's shell runs it (node_modules/.bin), in `cwd`. */
function bin(name: string, args: string[], cwd: string, input?: string) {
  const { FOUNDRY_ROOT, CLAUDE_PROJECT_DIR, FOUNDRY_HOOK_SERVER, ...env } = process.env
  return spawnSync(join(app, 'node_modules', '.bin', name), args, {
    cwd,
    input,
    encoding: 'utf8',
    env: { ...env, NO_COLOR: '1' },
    timeout: 30_000,
  })
}

const FACT = 'Database migrations use Flyway, not Liquibase'

packed('the installed foundry: init, write, search, without better-sqlite3', () => {
  const project = join(app, 'project')
  mkdirSync(project)
  const init = bin('foundry', ['init'], project)
  assert.is(init.status, 0, init.stderr)
  const write = bin(
    'foundry',
    [
      'write',
      '--title',
      FACT,
      '--type',
      'decision',
      '--body',
      'Plain SQL files.\nWhy: the team reads SQL.\nHow to apply: add V<n>__name.sql.',
    ],
    project,
  )
  assert.is(write.status, 0, write.stderr)
  assert.match(write.stdout, 'created: fact-0001')
  const search = bin('foundry', ['search', 'which migration tool'], project)
  assert.is(search.status, 0, search.stderr)
  assert.match(search.stdout, FACT)
})

packed('choosing SQLite without better-sqlite3 is one line saying how to install it', () => {
  const project = join(app, 'sqlite-project')
  mkdirSync(project)
  const init = bin('foundry', ['init', '--storage', 'sqlite'], project)
  assert.is(init.status, 1)
  const lines = init.stderr.trim().split('\n')
  assert.is(lines.length, 1, init.stderr)
  assert.match(lines[0] ?? '', 'needs better-sqlite3, which is not installed: run `npm install better-sqlite3`')
})

packed('foundry mcp from the installed package answers the SDK Client', async () => {
  const project = join(app, 'project')
  const { FOUNDRY_ROOT, CLAUDE_PROJECT_DIR, FOUNDRY_HOOK_SERVER, ...env } = process.env
  const transport = new StdioClientTransport({
    command: join(app, 'node_modules', '.bin', 'foundry'),
    args: ['mcp'],
    cwd: project,
    env: env as Record<string, string>,
    stderr: 'pipe',
  })
  const client = new Client({ name: 'packed-install-test', version: '0' })
  await client.connect(transport)
  try {
    const { tools } = await client.listTools()
    assert.ok(tools.some((tool) => tool.name === 'memory_search'))
    const result = (await client.callTool({
      name: 'memory_search',
      arguments: { query: 'database migration tool' },
    })) as { content: Array<{ text?: string }> }
    assert.match(result.content.map((part) => part.text ?? '').join('\n'), FACT)
  } finally {
    await client.close()
  }
})

packed('foundry-hook prompt-context from the installed package injects the fact', () => {
  const project = join(app, 'project')
  const input = {
    session_id: 'packed',
    transcript_path: join(project, 't.jsonl'),
    cwd: project,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'which database migration tool do we use, flyway?',
  }
  const run = bin('foundry-hook', ['prompt-context'], project, JSON.stringify(input))
  assert.is(run.status, 0, run.stderr)
  const output = JSON.parse(run.stdout)
  assert.is(output.hookSpecificOutput.hookEventName, 'UserPromptSubmit')
  assert.match(output.hookSpecificOutput.additionalContext, FACT)
  // The same bin as `npm i -g @foundry/cli` links it: @foundry/cli's foundry-hook runs @foundry/hooks'.
  const fromMcp = spawnSync(
    process.execPath,
    [join(app, 'node_modules', '@foundry', 'cli', 'bin', 'foundry-hook.cjs'), 'prompt-context'],
    { cwd: project, input: JSON.stringify(input), encoding: 'utf8' },
  )
  assert.is(fromMcp.status, 0, fromMcp.stderr)
  assert.equal(JSON.parse(fromMcp.stdout), output)
})

packed('with better-sqlite3 added, the installed foundry opens SQLite', () => {
  // `npm install better-sqlite3` would compile it again (~75 s here): link the workspace's built copy instead.
  const builtSqlite = realpathSync(
    dirname(
      createRequire(join(REPO, 'packages', 'adapter-sqlite', 'package.json')).resolve('better-sqlite3/package.json'),
    ),
  )
  symlinkSync(builtSqlite, join(app, 'node_modules', 'better-sqlite3'), 'dir')
  const project = join(app, 'sqlite-project')
  const init = bin('foundry', ['init', '--storage', 'sqlite'], project)
  assert.is(init.status, 0, init.stderr)
  const write = bin(
    'foundry',
    ['write', '--title', FACT, '--type', 'decision', '--body', 'Why: SQL.\nHow to apply: V<n>__name.sql.'],
    project,
  )
  assert.is(write.status, 0, write.stderr)
  const search = bin('foundry', ['search', 'flyway'], project)
  assert.match(search.stdout, FACT)
  assert.ok(readFileSync(join(project, '.foundry', 'config.json'), 'utf8').includes('sqlite'))
})

packed.run()
