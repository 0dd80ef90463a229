import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, tempDir } from './helpers.js'
import { startInitialized, textOf, toolCall } from './raw.js'

/** Issue 14, item 10: oversize input is refused before any write, with a message; the server says why, and goes on. */
const finding = {
  title: 'Orders endpoint lacks access control',
  severity: 'high',
  summary: 'One finding.',
  failureScenario: 'A customer reads another order.',
}

for (const storage of ['fs', 'sqlite'] as const) {
  const test = suite(`oversize (${storage})`)
  test.after(cleanup)

  const project = () => {
    const root = tempDir()
    const init = cli(['init', '--storage', storage], { cwd: root })
    assert.is(init.code, 0, init.stderr)
    return root
  }

  test(`a JSON-RPC message over 10 MiB is refused with -32600 and a line on stderr; the server answers the next one (${storage})`, async () => {
    const server = await startInitialized(project())
    try {
      const big = JSON.stringify(toolCall(1, 'memory_search', { query: 'x'.repeat(11 * 1024 * 1024) }))
      await server.write(`${big}\n`)
      await server.send({ jsonrpc: '2.0', id: 2, method: 'ping' })
      assert.equal((await server.answer(2)).result, {}, 'still serving')
      const refused = server.received().find((m) => m.id === null)
      assert.is(refused?.error?.code, -32600)
      assert.match(
        refused?.error?.message,
        /^Invalid Request: a message of \d+ bytes is over the limit of 10485760 bytes \(10 MiB\)/,
      )
      assert.match(server.stderr(), /foundry: Invalid Request: a message of \d+ bytes is over the limit/)
      assert.ok(server.peakRssMiB() < 300, `peak ${server.peakRssMiB()} MiB: the line was never buffered whole`)
    } finally {
      assert.is((await server.close()).code, 0)
    }
  })

  test(`blackboard_write: data over 1 MiB, or nested past 32 levels, is refused before any write (${storage})`, async () => {
    const root = project()
    const server = await startInitialized(root)
    try {
      await server.send(
        toolCall(1, 'blackboard_write', {
          wave: 'w',
          agent: 'big',
          schema: 'finding.v1',
          data: { ...finding, blob: 'x'.repeat(1024 * 1024) },
        }),
      )
      const big = await server.answer(1)
      assert.ok(big.result?.isError)
      assert.is(
        textOf(big),
        'blackboard_write failed: blackboard_write data is over 1 MiB as stored (pretty JSON): split it into smaller artifacts (nothing was written)',
      )
      // 8 KB of nesting, as raw JSON (JSON.stringify itself overflows the stack on it): its pretty form was 32 MB.
      const call = JSON.stringify(
        toolCall(2, 'blackboard_write', {
          wave: 'w',
          agent: 'deep',
          schema: 'finding.v1',
          data: { ...finding, deep: 0 },
        }),
      )
      await server.write(`${call.replace('"deep":0', `"deep":${'['.repeat(4000)}1${']'.repeat(4000)}`)}\n`)
      assert.match(
        textOf(await server.answer(2)),
        /^blackboard_write failed: Invalid arguments: nested more than 33 levels deep/,
      )
      if (storage === 'fs')
        assert.not.ok(
          existsSync(join(root, '.foundry', 'blackboard', 'w')) &&
            readdirSync(join(root, '.foundry', 'blackboard', 'w')).length,
        )
      // 32 levels (the data object and 31 arrays) is within the limit.
      let shallow: unknown = 1
      for (let i = 0; i < 31; i++) shallow = [shallow]
      await server.send(
        toolCall(3, 'blackboard_write', {
          wave: 'w',
          agent: 'deep',
          schema: 'finding.v1',
          data: { ...finding, deep: shallow },
        }),
      )
      assert.not.ok((await server.answer(3)).result?.isError)
      await server.send(toolCall(4, 'blackboard_read', { wave: 'w' }))
      assert.equal(
        (await server.answer(4)).result?.structuredContent.artifacts.map((a: { agent: string }) => a.agent),
        ['deep'],
      )
    } finally {
      await server.close()
    }
  })

  test(`blackboard_read full returns at most 4 MiB and names the artifacts left out (${storage})`, async () => {
    const server = await startInitialized(project())
    try {
      const agents = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6']
      await server.send(
        ...agents.map((agent, i) =>
          toolCall(i + 1, 'blackboard_write', {
            wave: 'w',
            agent,
            schema: 'finding.v1',
            data: { ...finding, blob: 'y'.repeat(900 * 1024) },
          }),
        ),
      )
      for (const i of agents.keys()) assert.not.ok((await server.answer(i + 1)).result?.isError)
      await server.send(toolCall(10, 'blackboard_read', { wave: 'w', full: true }))
      const text = textOf(await server.answer(10, 30_000))
      assert.ok(Buffer.byteLength(text) <= 4 * 1024 * 1024, `${Buffer.byteLength(text)} bytes`)
      assert.is(text.match(/^### a\d\.json$/gm)?.length, 4)
      assert.match(
        text,
        /\n\n2 artifacts left out: one full read returns at most 4 MiB\. Read them one at a time with agent: a5, a6\.$/,
      )
      await server.send(toolCall(11, 'blackboard_read', { wave: 'w', agent: 'a6', full: true }))
      assert.match(textOf(await server.answer(11)), /^### a6\.json\n```json\n/)
    } finally {
      await server.close()
    }
  })

  test.run()
}

const strings = suite('oversize: every string has a maximum')
strings.after(cleanup)

strings('strings past their maximum are refused by the schema, naming the field', async () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  const server = await startInitialized(root)
  try {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        'memory_write',
        { title: 'T is t', body: 'B.', type: 'domain', scope: `module:${'m'.repeat(300)}` },
        /scope must be at most 200 characters/,
      ],
      [
        'memory_write',
        { title: 'T is t', body: 'B.', type: 'domain', source: `external:${'u'.repeat(600)}` },
        /source must be at most 500 characters/,
      ],
      [
        'memory_write',
        { title: 'T is t', body: 'b'.repeat(4001), type: 'domain' },
        /body must be at most 4000 characters/,
      ],
      ['memory_search', { query: 'q'.repeat(2001) }, /query must be at most 2000 characters/],
      ['contract_validate', { schema: 'finding.v1', path: 'p'.repeat(1025) }, /path must be at most 1024 characters/],
      [
        'blackboard_write',
        { wave: 'w'.repeat(81), agent: 'a', schema: 'finding.v1', data: finding },
        /wave must be at most 80 characters/,
      ],
      ['blackboard_read', { wave: 'w', agent: 'a'.repeat(81) }, /agent must be at most 80 characters/],
    ]
    for (const [i, [name, args, pattern]] of cases.entries()) {
      await server.send(toolCall(i + 1, name, args))
      const answer = await server.answer(i + 1)
      assert.ok(answer.result?.isError, name)
      assert.match(textOf(answer), pattern)
    }
    const list = cli(['list', '--json'], { cwd: root })
    assert.equal(JSON.parse(list.stdout).facts, [], 'nothing was written')
  } finally {
    await server.close()
  }
})

strings.run()
