// Tool rows carry their role; a row without a valid one refuses to start (fail closed), in-process and over HTTP.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError } from '@foundry/kernel'
import { Type } from 'typebox'
import { createToolServer, publishTools } from '../src/index.js'
import { serveHttp } from '../src/http/serve.js'
import { checkTools, type ToolRow } from '@foundry/kernel/tools'
import { mayCall } from '../src/http/auth.js'

const NoInput = Type.Object({}, { additionalProperties: false })
const row = (name: string, role: unknown): ToolRow<unknown> => ({
  name,
  description: name,
  input: NoInput,
  role: role as ToolRow['role'],
  call: async () => ({ text: 'ok', structured: {} }),
})

test('checkTools returns each role by name', () => {
  const roles = checkTools([row('a', 'read'), row('b', 'write'), row('c', 'run')])
  assert.equal(
    [...roles],
    [
      ['a', 'read'],
      ['b', 'write'],
      ['c', 'run'],
    ],
  )
})

test('a row without a role, or with one not read/write/run, is refused with INVALID_INPUT naming the tool and the fix', () => {
  for (const role of [undefined, 'admin', '']) {
    let error: unknown
    try {
      checkTools([row('fine', 'read'), row('forgotten', role)])
    } catch (e) {
      error = e
    }
    assert.ok(isFoundryError(error, 'INVALID_INPUT'), String(error))
    assert.match((error as Error).message, /^tool forgotten: role .*; give the row role: 'read', 'write' or 'run'/)
  }
})

test('two rows with one name are refused', () => {
  assert.throws(() => checkTools([row('a', 'read'), row('a', 'write')]), /tool a: two rows share the name/)
})

test('createToolServer and serveHttp refuse to start on a row without a role', async () => {
  const tools = [row('ok', 'read'), row('no_role', undefined)]
  assert.throws(
    () => createToolServer({ info: { name: 't', version: '1' }, tools, context: () => ({}) }),
    /tool no_role: role missing/,
  )
  let error: unknown
  await serveHttp({
    name: 't',
    tools,
    session: () => createToolServer({ info: { name: 't', version: '1' }, tools: [], context: () => ({}) }),
    log: () => {},
  }).catch((e: unknown) => (error = e))
  assert.match(String(error), /tool no_role: role missing/)
})

test('mayCall: a tool without a role is callable by nobody; write and run include read', () => {
  const roles = checkTools([row('r', 'read'), row('w', 'write'), row('x', 'run')])
  const reader = { name: 'rita', roles: ['read' as const] }
  const runner = { name: 'rex', roles: ['run' as const] }
  assert.equal(
    ['r', 'w', 'x', 'unlisted'].map((t) => mayCall(reader, t, roles)),
    [true, false, false, false],
  )
  assert.equal(
    ['r', 'w', 'x', 'unlisted'].map((t) => mayCall(runner, t, roles)),
    [true, false, true, false],
  )
})

test('publishTools publishes no role and no output schema, and leaves out of the input what tells a model nothing', () => {
  const output = Type.Object({ n: Type.Number() })
  const input = Type.Object(
    {
      kind: Type.Enum(['a', 'b'], { description: 'a | b' }),
      level: Type.Enum(['high', 'low'], { description: 'Defaults to low' }),
      data: Type.Record(Type.String(), Type.Unknown()),
      description: Type.String({ maxLength: 9, description: 'A field named description' }),
    },
    { additionalProperties: false },
  )
  const [plain, textOnly] = publishTools([
    { ...row('a', 'read'), input, output, title: 'A' },
    { ...row('b', 'read'), output, textOnly: true },
  ])
  assert.equal(Object.keys(plain!).sort(), ['description', 'inputSchema', 'name', 'title'])
  assert.equal(Object.keys(textOnly!).sort(), ['description', 'inputSchema', 'name'])
  assert.equal(plain!.inputSchema, {
    type: 'object',
    required: ['kind', 'level', 'data', 'description'],
    properties: {
      kind: { enum: ['a', 'b'] },
      level: { enum: ['high', 'low'], description: 'Defaults to low' },
      data: { type: 'object' },
      description: { type: 'string', maxLength: 9, description: 'A field named description' },
    },
  })
  assert.is(
    (input as { additionalProperties?: boolean }).additionalProperties,
    false,
    'the row keeps its schema: the server validates against it',
  )
})

test.run()
