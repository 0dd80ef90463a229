// A plain `foundry mcp` command line is served by the bin without commander, from its own script
// (the direct path); every other line goes through the program. Both serve the same, and the direct
// path loads no HTTP serving.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { plainMcpArgs } from '../src/cli/mcp-args.js'
import { call, cleanup, connectWith, tempProject } from './helpers.js'
import { startInitialized, textOf, toolCall } from './raw.js'

const REPORT_LOADED = join(new URL('.', import.meta.url).pathname, 'fixtures', 'report-loaded.cjs')
const MCP_SCRIPT = join(new URL('.', import.meta.url).pathname, '..', 'dist', 'bin', 'foundry-mcp.cjs')

test.after.each(cleanup)

test('plainMcpArgs takes mcp and the global options around it, and nothing else', () => {
  assert.equal(plainMcpArgs(['--root', '/p', 'mcp', '--storage', 'sqlite', '--debug']), {
    root: '/p',
    storage: 'sqlite',
    debug: true,
  })
  assert.equal(plainMcpArgs(['mcp']), {})
  for (const args of [
    ['mcp', '--http'],
    ['mcp', '--help'],
    ['--version', 'mcp'],
    ['mcp', '--root=/p'],
    ['--root', '/p', 'mcp', '--root', '/q'],
    ['mcp', '--root', '--debug'],
    ['mcp', '--root'],
    ['mcp', 'mcp'],
    ['mcp', '--port', '1'],
    ['--root', '/p'],
  ])
    assert.is(plainMcpArgs(args), undefined, args.join(' '))
})

test('the direct path and the program serve the same session', async () => {
  const root = tempProject()
  const direct = await connectWith(['--root', root])
  const program = await connectWith([`--root=${root}`])
  try {
    const written = await call(direct.client, 'memory_write', {
      title: 'Deploys go through the release train',
      body: 'Every Tuesday.',
      type: 'convention',
    })
    assert.not.ok(written.isError, written.text)
    assert.equal(await direct.client.listTools(), await program.client.listTools())
    const [a, b] = await Promise.all([
      call(direct.client, 'memory_search', { query: 'release train' }),
      call(program.client, 'memory_search', { query: 'release train' }),
    ])
    assert.ok(a.text.includes('Deploys go through the release train'), a.text)
    assert.is(b.text, a.text)
  } finally {
    await direct.close()
    await program.close()
  }
})

test('a search asked the moment initialize is answered gets the answer the same search gets later', async () => {
  const root = tempProject()
  const seeding = await connectWith(['--root', root])
  const written = await call(seeding.client, 'memory_write', {
    title: 'Invoices are rounded per line',
    body: 'Each line, then the total.',
    type: 'domain',
  })
  assert.not.ok(written.isError, written.text)
  await seeding.close()
  const session = await connectWith(['--root', root])
  try {
    // Asked at once: answered before the SDK's Server has loaded. Then tools/list, which only the Server answers.
    const first = await session.client.callTool({ name: 'memory_search', arguments: { query: 'invoices rounded' } })
    assert.ok((await session.client.listTools()).tools.length > 0)
    const later = await session.client.callTool({ name: 'memory_search', arguments: { query: 'invoices rounded' } })
    assert.ok(JSON.stringify(first.content).includes('fact-0001'), JSON.stringify(first.content))
    assert.equal(first, later)
  } finally {
    await session.close()
  }
})

test('a stdio session loads neither Node’s fetch nor its HTTP server', async () => {
  const root = tempProject()
  const session = await connectWith(['--root', root], {
    env: { ...getDefaultEnvironment(), NODE_OPTIONS: `--require ${REPORT_LOADED}`, FOUNDRY_HOOK_SERVER: 'off' },
  })
  await call(session.client, 'memory_search', { query: 'anything' })
  await session.close()
  // The client waits for the server to exit: its last line is written by then.
  const line = /loaded-at-exit (.*)/.exec(session.stderr())
  assert.ok(line, session.stderr())
  assert.equal(JSON.parse(line![1]!), [])
})

test('a new session answers its first search without starting the thread pool', async () => {
  if (process.platform !== 'linux') return // the threads are counted in /proc/<pid>/task
  const root = tempProject({ storage: { kind: 'fs' } })
  const seeding = await startInitialized(root)
  await seeding.send(
    toolCall(1, 'memory_write', { title: 'Invoices are rounded per line', body: 'Each line.', type: 'domain' }),
  )
  assert.ok(textOf(await seeding.answer(1)).startsWith('created: fact-0001'))
  await seeding.close()
  // Through the pool, each small read waits for a pool thread to be scheduled, and the first starts them all.
  const session = await startInitialized(root) // without the hook server, which starts once the answer is written
  try {
    const threads = () => readdirSync(`/proc/${session.child.pid}/task`).length
    const before = threads()
    await session.send(toolCall(1, 'memory_search', { query: 'invoices rounded' }))
    assert.ok(textOf(await session.answer(1)).includes('fact-0001'))
    assert.is(threads(), before, 'no thread started between initialize and the first answer')
  } finally {
    await session.close()
  }
})

test('the direct path builds only the protocol schemas its server reaches', () => {
  const script = readFileSync(MCP_SCRIPT, 'latin1')
  const built = (name: string) => new RegExp(`\\b${name} ?=[^=]`).test(script)
  // What the transport and the Server check messages and results with.
  for (const name of [
    'JSONRPCMessageSchema',
    'InitializeRequestSchema',
    'CallToolRequestSchema',
    'CallToolResultSchema',
  ])
    assert.ok(built(name), `${name} is missing from the script`)
  // What only a client, or a server with prompts or completions, checks.
  for (const name of ['ClientRequestSchema', 'ServerResultSchema', 'ListPromptsRequestSchema', 'CompleteRequestSchema'])
    assert.not.ok(built(name), `${name} is built, though no code of the server reaches it`)
})

test.run()
