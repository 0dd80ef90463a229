import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { KERNEL_TOOLS } from '@foundry/kernel/tools'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { call, cleanup, connect, initialize, pipeSession, readText, tempProject, type Connection } from './helpers.js'

const ELEVEN = [
  'memory_search',
  'memory_write',
  'memory_index',
  'runbook_list',
  'runbook_get',
  'contract_validate',
  'blackboard_write',
  'blackboard_read',
  'token_report',
  'memory_forget',
  'memory_review',
]

const handshake = suite<{ conn: Connection; root: string }>('protocol: initialize, tools/list, resources')
handshake.before(async (ctx) => {
  ctx.root = tempProject()
  ctx.conn = await connect(ctx.root)
})
handshake.after(async (ctx) => {
  await ctx.conn.close()
  cleanup()
})

handshake('initialize names the server foundry and returns the seed instructions verbatim', ({ conn }) => {
  assert.is(conn.client.getServerVersion()?.name, 'foundry')
  assert.is(
    conn.client.getInstructions(),
    'Foundry memory and contracts. Prefer memory_search over reading .foundry files. Consult runbook_list before recurring tasks. Hand work between agents with blackboard_write, returning only the artifact path and a short summary.',
  )
  assert.equal(conn.client.getServerCapabilities(), { tools: {}, resources: {} })
})

handshake(
  'tools/list has the eleven tools with the kernel schemas as inputSchema (their fields, types and limits), and no outputSchema',
  async ({ conn }) => {
    const { tools } = await conn.client.listTools()
    assert.equal(
      tools.map((t) => t.name),
      ELEVEN,
    )
    const byName = new Map(tools.map((t) => [t.name, t]))
    for (const { name, input: schema } of KERNEL_TOOLS) {
      const published = byName.get(name)!.inputSchema as {
        properties: Record<string, Record<string, unknown>>
        required?: string[]
      }
      assert.equal(
        Object.keys(published.properties),
        Object.keys(schema.properties),
        `${name}: the kernel schema's fields`,
      )
      assert.equal(published.required, schema.required, `${name}: the kernel schema's required fields`)
      for (const [field, kernel] of Object.entries(schema.properties as Record<string, Record<string, unknown>>))
        for (const keyword of ['type', 'enum', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'maxItems'])
          assert.equal(
            published.properties[field]![keyword],
            kernel[keyword],
            `${name}.${field}: ${keyword} as the kernel has it`,
          )
    }
    // One fact's fields as the seed names them, or `facts` in their place: title, body and type are then required by the kernel.
    const writeFields = Object.keys(byName.get('memory_write')?.inputSchema.properties ?? {})
    assert.is(writeFields.at(-1), 'facts')
    for (const field of ['title', 'body', 'type', 'confidence', 'scope'])
      assert.ok(writeFields.includes(field), `memory_write: ${field}`)
    assert.equal(byName.get('memory_search')?.inputSchema.required, ['query'])
    assert.is(byName.get('memory_write')?.inputSchema.required, undefined)
    assert.equal(byName.get('blackboard_write')?.inputSchema.required, ['wave', 'agent', 'schema', 'data'])
    assert.equal(byName.get('memory_forget')?.inputSchema.required, ['id', 'reason'])
    assert.is(byName.get('memory_forget')?.annotations?.destructiveHint, true)
    for (const tool of tools) {
      // Optional in MCP, and paid for by every session: the text is the answer, structuredContent matches the row's output (helpers' call checks it).
      assert.is(tool.outputSchema, undefined, `${tool.name} publishes no outputSchema`)
      assert.ok(tool.description && tool.description.length > 40, `${tool.name} has a description`)
      assert.not.match(
        JSON.stringify(tool.inputSchema),
        /additionalProperties|patternProperties/,
        `${tool.name}: no keywords that tell a model nothing`,
      )
    }
    assert.ok(byName.get('memory_search')?.description?.includes('before proposing an architecture'))
    assert.is(byName.get('memory_search')?.annotations?.readOnlyHint, true)
  },
)

handshake(
  'tools/list costs at most 2,000 tokens (chars / 4), as every session pays it before its first question',
  async ({ conn }) => {
    const { tools } = await conn.client.listTools()
    const tokens = Math.ceil(JSON.stringify({ tools }).length / 4)
    assert.ok(
      tokens <= 2000,
      `tools/list is ~${tokens} tokens; tighten the tool rows' descriptions and schemas (packages/kernel/src/tools) to 2,000 or less`,
    )
  },
)

handshake(
  'an unknown argument is still refused by name, though the published schemas leave additionalProperties out',
  async ({ conn }) => {
    const refused = await call(conn.client, 'memory_search', { query: 'x', bogus: 1 })
    assert.ok(refused.isError, 'the server validates against the kernel schema')
    assert.match(refused.text, /bogus/)
  },
)

handshake('resources/list has the memory index and the contracts, as markdown', async ({ conn }) => {
  const { resources } = await conn.client.listResources()
  assert.equal(
    resources.map((r) => [r.uri, r.name, r.mimeType]),
    [
      ['foundry://memory/index', 'Memory index', 'text/markdown'],
      ['foundry://contracts', 'I/O contracts', 'text/markdown'],
    ],
  )
})

handshake(
  'foundry://memory/index is built on demand; foundry://contracts lists the built-in contracts',
  async ({ conn }) => {
    const index = await conn.client.readResource({ uri: 'foundry://memory/index' })
    assert.is(index.contents[0]?.mimeType, 'text/markdown')
    assert.match(await readText(conn.client, 'foundry://memory/index'), /^# Memory index\n[^]*No facts yet/)
    assert.match(
      await readText(conn.client, 'foundry://contracts'),
      /- `finding\.v1` \(built-in\)\n- `handoff\.v1` \(built-in\)\n- `review\.v1` \(built-in\)/,
    )
  },
)

handshake('an unknown resource is JSON-RPC error -32602 "Unknown resource: <uri>"', async ({ conn }) => {
  for (const uri of ['foundry://nope', 'foundry://runbooks/missing', 'file:///etc/passwd']) {
    try {
      await conn.client.readResource({ uri })
      assert.unreachable(`${uri} should fail`)
    } catch (error) {
      assert.is((error as { code?: number }).code, -32602)
      assert.match((error as Error).message, `Unknown resource: ${uri}`)
    }
  }
})

handshake('an unknown tool is an error result naming the eleven', async ({ conn }) => {
  const result = await call(conn.client, 'memory_delete', {})
  assert.ok(result.isError)
  assert.is(result.text, `Unknown tool "memory_delete". Available: ${ELEVEN.join(', ')}.`)
})

handshake('arguments that break the schema are an error result naming the field', async ({ conn }) => {
  const missing = await call(conn.client, 'memory_search', {})
  assert.ok(missing.isError)
  assert.is(missing.text, 'memory_search failed: Invalid arguments: missing required property "query"')
  const range = await call(conn.client, 'memory_search', { query: 'x', limit: 99 })
  assert.is(range.text, 'memory_search failed: Invalid arguments: limit must be <= 25')
  const type = await call(conn.client, 'memory_write', { title: 'T', body: 'B', type: 'opinion' })
  assert.is(
    type.text,
    'memory_write failed: Invalid arguments: type must be one of decision | constraint | convention | domain | risk | metric | glossary',
  )
  const extra = await call(conn.client, 'token_report', { verbose: true })
  assert.is(extra.text, 'token_report failed: Invalid arguments: unknown property "verbose" (remove it)')
})

handshake('a tool that throws is an error result "<tool> failed: <message>"', async ({ conn }) => {
  const neither = await call(conn.client, 'contract_validate', { schema: 'finding.v1' })
  assert.ok(neither.isError)
  assert.is(neither.text, 'contract_validate failed: Provide either `data` or `path`.')
  const unknown = await call(conn.client, 'runbook_get', { slug: 'deploy' })
  assert.is(unknown.text, 'runbook_get failed: Unknown runbook "deploy". Available: none.')
  const contract = await call(conn.client, 'contract_validate', { schema: 'nope.v1', data: {} })
  assert.is(
    contract.text,
    'contract_validate failed: Unknown contract "nope.v1". Available: facts.proposal.v1, finding.v1, handoff.v1, review.v1.',
  )
  assert.is(conn.stderr(), '', 'user errors are not diagnostics')
})

handshake.run()

const wire = suite('protocol: the wire')

wire(
  'stdout carries only JSON-RPC messages; both protocol versions; stdin closing right after the last request still gets every answer',
  async () => {
    const root = tempProject()
    for (const version of ['2025-06-18', '2025-11-25']) {
      const session = await pipeSession(root, [
        initialize(1, version),
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
        {
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { name: 'memory_search', arguments: { query: 'anything' } },
        },
        { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'foundry://nope' } },
      ])
      assert.is(session.messages.length, 5)
      for (const message of session.messages) assert.is(message.jsonrpc, '2.0')
      const byId = new Map(session.messages.map((m) => [m.id, m]))
      assert.is(byId.get(1)?.result.protocolVersion, version)
      assert.is(byId.get(1)?.result.serverInfo.name, 'foundry')
      assert.equal(byId.get(2)?.result, {})
      assert.is(byId.get(3)?.result.tools.length, 11)
      assert.is(byId.get(4)?.result.content[0].text, 'No stored fact matches "anything". Memory holds 0 active facts.')
      assert.equal(byId.get(5)?.error, { code: -32602, message: 'Unknown resource: foundry://nope' })
      assert.is(session.exitCode, 0)
      assert.is(session.stderr, '')
    }
    cleanup()
  },
)

wire(
  'an invalid .foundry/config.json: initialize still answers, and each tool names the file and the key',
  async () => {
    const root = tempProject({ indexTokenBudget: 'big' })
    const conn = await connect(root)
    try {
      const result = await call(conn.client, 'memory_search', { query: 'x' })
      assert.ok(result.isError)
      assert.is(
        result.text,
        `memory_search failed: Invalid ${join(root, '.foundry', 'config.json')}: indexTokenBudget must be integer`,
      )
      // Fixed while the server runs: the next call opens the project.
      writeFileSync(join(root, '.foundry', 'config.json'), JSON.stringify({ indexTokenBudget: 2000 }))
      const fixed = await call(conn.client, 'memory_search', { query: 'x' })
      assert.is(fixed.text, 'No stored fact matches "x". Memory holds 0 active facts.')
    } finally {
      await conn.close()
      cleanup()
    }
  },
)

wire.run()
