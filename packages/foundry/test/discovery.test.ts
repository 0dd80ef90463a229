import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { call, cleanup, cli, connectWith, flyway, tempDir, tempProject } from './helpers.js'

/** Every path under `dir`: what the cases compare to show that nothing was created. */
const tree = (dir: string) => (readdirSync(dir, { recursive: true }) as string[]).sort()
const notFound = (dir: string) => `no Foundry project at ${dir} (run foundry init)`

const test = suite('finding the project, like git: nothing creates a store by accident')
test.after(cleanup)

test('--root naming a folder that does not exist: one error line, exit 1, and the folder is not created', () => {
  const missing = join(tempDir(), 'no', 'such', 'dir')
  const run = cli(['--root', missing, 'list'])
  assert.equal([run.code, run.stdout, run.stderr], [1, '', `error: ${notFound(missing)}\n`])
  assert.not.ok(existsSync(join(missing, '..', '..')), 'nothing of the path was created')
  // The same for a folder that exists but is not a project, and for FOUNDRY_ROOT.
  const plain = tempDir()
  assert.is(cli(['--root', plain, 'search', 'x']).stderr, `error: ${notFound(plain)}\n`)
  assert.is(cli(['list'], { env: { FOUNDRY_ROOT: plain } }).stderr, `error: ${notFound(plain)}\n`)
  assert.equal(tree(plain), [])
})

test('in a subfolder, commands use the project above it and leave no stray .foundry/; outside any project they fail', () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  const sub = join(root, 'src', 'billing')
  mkdirSync(sub, { recursive: true })
  const write = cli(['write', '--title', flyway.title, '--body', flyway.body, '--type', 'decision'], { cwd: sub })
  assert.is(write.code, 0, write.stderr)
  assert.match(cli(['list'], { cwd: sub }).stdout, /^fact-0001 · decision/)
  assert.equal(tree(join(root, 'src')), ['billing'], 'no .foundry/ below the project root')

  const plain = tempDir()
  const deep = join(plain, 'a', 'b')
  mkdirSync(deep, { recursive: true })
  const run = cli(['list'], { cwd: deep })
  assert.equal([run.code, run.stderr], [1, `error: ${notFound(deep)}\n`])
  assert.equal(tree(plain), ['a', join('a', 'b')])
})

test('foundry init in a subfolder of a project makes a new, nested project there, and says so', () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  const sub = join(root, 'services', 'search')
  mkdirSync(sub, { recursive: true })
  const init = cli(['init'], { cwd: sub })
  assert.is(init.code, 0, init.stderr)
  assert.match(
    init.stdout,
    `Initialised ${join(sub, '.foundry')} (storage fs)\nThis is a new project nested inside the one at ${root}: commands under ${sub} now use it.\n`,
  )
  assert.ok(existsSync(join(sub, '.foundry', 'config.json')))
  assert.is(JSON.parse(cli(['init', '--json'], { cwd: sub }).stdout).created, false)
})

test('foundry init rewrites a config.json of the old shape in the current one, in one line', () => {
  const root = tempProject({ storage: 'fs', retrieval: 'fts', indexTokenBudget: 3000 })
  const file = join(root, '.foundry', 'config.json')
  const init = cli(['init'], { cwd: root })
  assert.is(init.code, 0, init.stderr)
  assert.match(
    init.stdout,
    `Already initialised: ${file} (storage fs)\nRewrote ${file} in the current shape: "storage" and "retrieval" are { "kind": …, …options }.\nRebuilt `,
  )
  assert.equal(JSON.parse(readFileSync(file, 'utf8')), {
    storage: { kind: 'fs' },
    retrieval: { kind: 'fts' },
    indexTokenBudget: 3000,
  })
})

test('foundry mcp outside a project starts and initializes, answers each tool with the error, creates nothing, and works once initialised', async () => {
  const dir = tempDir()
  const conn = await connectWith([], { cwd: dir })
  try {
    assert.is(conn.client.getServerVersion()?.name, 'foundry')
    assert.is((await conn.client.listTools()).tools.length, 11)
    const result = await call(conn.client, 'memory_search', { query: 'flyway' })
    assert.ok(result.isError)
    assert.is(result.text, `memory_search failed: ${notFound(dir)}`)
    assert.is((await call(conn.client, 'memory_write', flyway)).text, `memory_write failed: ${notFound(dir)}`)
    assert.equal(tree(dir), [], 'no .foundry/ created')

    assert.is(cli(['init'], { cwd: dir }).code, 0)
    const written = await call(conn.client, 'memory_write', flyway)
    assert.not.ok(written.isError, written.text)
    assert.match(written.text, /^created: fact-0001/)
  } finally {
    await conn.close()
  }
})

test.run()
