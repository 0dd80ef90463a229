// The package's entries as a consumer imports them (the build, in a fresh process): the root is the
// authoring API and loads no engine, project or MCP server; the engine subpath loads no MCP server.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { HERE } from './helpers.js'

const PACKAGE = join(HERE, '..')
const SERVERS = /@modelcontextprotocol\/sdk|\/packages\/mcp\/|@foundry\/mcp/
const PROJECT = /\/packages\/project\/|@foundry\/project/

/** Every module URL Node resolves while a fresh process imports `specifier`. */
function loadedBy(specifier: string): string[] {
  const run = spawnSync(process.execPath, [join(HERE, 'fixtures', 'loaded-modules.mjs'), specifier], {
    cwd: PACKAGE,
    encoding: 'utf8',
    timeout: 60_000,
  })
  assert.is(run.status, 0, run.stderr)
  return JSON.parse(run.stdout) as string[]
}

test('@foundry/marbles (the authoring API) loads no MCP SDK, @foundry/mcp or @foundry/project', async () => {
  const urls = loadedBy('@foundry/marbles')
  assert.ok(
    urls.some((url) => url.endsWith('/marbles/dist/index.js')),
    urls.join('\n'),
  )
  assert.equal(
    urls.filter((url) => SERVERS.test(url) || PROJECT.test(url)),
    [],
  )
  // Nothing outside the package's own build: the authoring API imports the kernel for types only.
  assert.equal(
    urls.filter((url) => !url.includes('/marbles/dist/') || url.includes('/dist/bin/')),
    [],
  )
  const { workflow, step, agent, schedule, monitor, duration } = await import('@foundry/marbles')
  for (const fn of [workflow, step, agent, schedule, monitor, duration]) assert.type(fn, 'function')
})

test('@foundry/marbles/engine loads the project (the detector sees packages) but no MCP server', () => {
  const urls = loadedBy('@foundry/marbles/engine')
  assert.ok(
    urls.some((url) => url.endsWith('/marbles/dist/engine/index.js')),
    urls.join('\n'),
  )
  assert.ok(
    urls.some((url) => PROJECT.test(url)),
    urls.join('\n'),
  )
  assert.equal(
    urls.filter((url) => SERVERS.test(url)),
    [],
  )
})

test.run()
