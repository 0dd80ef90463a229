import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError } from '../src/index.js'
import { kernelFor } from './helpers.js'

const finding = { title: 'IDOR', severity: 'high', failureScenario: 'User A reads order 42 of user B.' }

test('VALID and INVALID texts exactly as the seed shows', async () => {
  const k = kernelFor()
  assert.is((await k.contracts.validate({ schema: 'finding.v1', data: finding })).text, 'VALID against finding.v1')
  const { failureScenario: _f, ...bad } = finding
  const r = await k.contracts.validate({ schema: 'finding.v1', data: bad })
  assert.is(r.text, 'INVALID against finding.v1:\n- missing required property "failureScenario"')
  assert.equal(r.violations, ['missing required property "failureScenario"'])
  const worse = await k.contracts.validate({
    schema: 'finding.v1',
    data: { title: 'x', severity: 'catastrophic', failureScenario: 3 },
  })
  assert.equal(worse.violations, [
    'severity must be one of critical | high | medium | low | info',
    'failureScenario must be string',
  ])
})

test('review.v1 nests findings; violations name the nested field', async () => {
  const k = kernelFor()
  const ok = await k.contracts.validate({
    schema: 'review.v1',
    data: { summary: 'Fine.', verdict: 'approve', findings: [finding] },
  })
  assert.ok(ok.valid)
  const bad = await k.contracts.validate({
    schema: 'review.v1',
    data: { summary: 'x', verdict: 'approve', findings: [{ title: 'y', severity: 'low' }] },
  })
  assert.equal(bad.violations, ['missing required property "findings[0].failureScenario"'])
})

test('facts.proposal.v1: a property may be named type; a proposal with an unknown type or field is invalid', async () => {
  const k = kernelFor()
  const fact = { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' }
  assert.ok((await k.contracts.validate({ schema: 'facts.proposal.v1', data: { facts: [fact] } })).valid)
  assert.ok(
    (await k.contracts.validate({ schema: 'facts.proposal.v1', data: { facts: [] } })).valid,
    'nothing to propose',
  )
  const bad = await k.contracts.validate({
    schema: 'facts.proposal.v1',
    data: {
      facts: [
        { ...fact, type: 'opinion' },
        { ...fact, id: 'fact-0001' },
      ],
    },
  })
  assert.not.ok(bad.valid)
  assert.ok(bad.violations.length >= 2, bad.text)
  await k.storage.put('contracts', 'typed.v1', {
    id: 'typed.v1',
    schema: { type: 'object', properties: { type: { type: 'string' } } },
  })
  assert.ok(
    (await k.contracts.validate({ schema: 'typed.v1', data: { type: 'x' } })).valid,
    'a project contract with a property named type',
  )
})

test('exactly one of data or path', async () => {
  const k = kernelFor()
  for (const input of [{ schema: 'finding.v1' }, { schema: 'finding.v1', data: {}, path: 'x.json' }]) {
    try {
      await k.contracts.validate(input)
      assert.unreachable()
    } catch (error) {
      assert.is((error as Error).message, 'Provide either `data` or `path`.')
    }
  }
})

test('path is read through the host, relative to the root; unreadable or invalid JSON is a clear error', async () => {
  const files: Record<string, string> = {
    '/home/me/project/out/finding.json': JSON.stringify(finding),
    '/abs/bad.json': '{not json',
  }
  const k = kernelFor(
    {},
    {
      readFile: async (p) =>
        p in files ? files[p]! : Promise.reject(Object.assign(new Error('nope'), { code: 'ENOENT' })),
    },
  )
  assert.ok((await k.contracts.validate({ schema: 'finding.v1', path: 'out/finding.json' })).valid)
  await k.contracts.validate({ schema: 'finding.v1', path: '/abs/bad.json' }).then(
    () => assert.unreachable(),
    (e) => assert.match(e.message, /^\/abs\/bad\.json is not valid JSON/),
  )
  await k.contracts.validate({ schema: 'finding.v1', path: 'missing.json' }).then(
    () => assert.unreachable(),
    (e) =>
      assert.ok(
        isFoundryError(e, 'NOT_FOUND') && /Cannot read \/home\/me\/project\/missing\.json: ENOENT/.test(e.message),
      ),
  )
})

test('project contracts sit beside the built-ins; a broken schema names its contract; built-in ids are reserved', async () => {
  const k = kernelFor()
  await k.storage.put('contracts', 'incident.v1', {
    id: 'incident.v1',
    schema: { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } },
  })
  await k.storage.put('contracts', 'broken.v1', {
    id: 'broken.v1',
    schema: { type: 'object', properties: { a: { type: 'no-such-type' } } },
  })
  await k.storage.put('contracts', 'finding.v1', { id: 'finding.v1', schema: { type: 'object' } })
  assert.equal(
    (await k.contracts.list()).map((c) => `${c.id}:${c.origin}`),
    [
      'broken.v1:project',
      'facts.proposal.v1:builtin',
      'finding.v1:builtin',
      'handoff.v1:builtin',
      'incident.v1:project',
      'review.v1:builtin',
    ],
  )
  assert.ok(
    k.problems.some((p) => p.key === 'finding.v1' && /built-in contract id/.test(p.message)),
    'reserved id reported',
  )
  assert.is(
    (await k.contracts.validate({ schema: 'incident.v1', data: {} })).text,
    'INVALID against incident.v1:\n- missing required property "summary"',
  )
  assert.not.ok((await k.contracts.validate({ schema: 'finding.v1', data: {} })).valid, 'the built-in wins')
  await k.contracts.validate({ schema: 'broken.v1', data: {} }).then(
    () => assert.unreachable(),
    (e) =>
      assert.ok(
        isFoundryError(e, 'CORRUPT') && /Contract broken\.v1 .* is not a valid JSON Schema/.test(e.message),
        e.message,
      ),
  )
})

test('validation is recorded as contract_valid and contract_violation events', async () => {
  const k = kernelFor()
  await k.contracts.validate({ schema: 'finding.v1', data: finding })
  await k.contracts.validate({ schema: 'finding.v1', data: {} })
  assert.equal(
    (await k.storage.readEvents()).map((e) => e.kind),
    ['contract_valid', 'contract_violation'],
  )
})

test.run()
