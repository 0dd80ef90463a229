import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { memoryStorage, sanitizeName, serializeArtifact } from '../src/index.js'
import { utf8Bytes } from '../src/tokens.js'
import { kernelFor } from './helpers.js'

async function rejects(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await promise
  } catch (error) {
    assert.match((error as Error).message, pattern)
    return
  }
  assert.unreachable(`expected a rejection matching ${pattern}`)
}

const finding = {
  title: 'IDOR on /api/orders',
  severity: 'high',
  failureScenario: 'User A reads order 42 of user B by changing the id.',
}

test('write validates, sets schema and producedBy, stores, and answers with the path, size and firewall line', async () => {
  const k = kernelFor()
  const r = await k.blackboard.write({ wave: 'audit', agent: 'appsec-reviewer', schema: 'finding.v1', data: finding })
  const stored = await k.storage.get('artifacts', 'audit/appsec-reviewer')
  assert.equal(stored?.data, { ...finding, schema: 'finding.v1', producedBy: 'appsec-reviewer' })
  const bytes = utf8Bytes(serializeArtifact(stored!.data))
  assert.is(
    r.text,
    `Wrote memory://artifacts/audit/appsec-reviewer (${bytes} bytes, ~${Math.ceil(serializeArtifact(stored!.data).length / 4)} tokens).\nReturn to your caller ONLY this path and a summary of at most 300 tokens.`,
  )
  assert.is(r.written, true)
})

test('the path is shown relative to the project root, and the budget comes from config', async () => {
  const storage = memoryStorage()
  const located = {
    ...storage,
    locate: (_c: string, key: string) => `/home/me/project/.foundry/blackboard/${key}.json`,
  }
  const k2 = kernelFor({ handoffSummaryTokenBudget: 150 }, { storage: located })
  const r = await k2.blackboard.write({ wave: 'audit', agent: 'appsec-reviewer', schema: 'finding.v1', data: finding })
  assert.match(
    r.text,
    /^Wrote \.foundry\/blackboard\/audit\/appsec-reviewer\.json \(\d+ bytes, ~\d+ tokens\)\.\nReturn to your caller ONLY this path and a summary of at most 150 tokens\.$/,
  )
})

test('a contract violation is rejected with the seed text and nothing is written', async () => {
  const k = kernelFor()
  const { failureScenario: _f, ...incomplete } = finding
  const r = await k.blackboard.write({
    wave: 'audit',
    agent: 'appsec-reviewer',
    schema: 'finding.v1',
    data: incomplete,
  })
  assert.is(
    r.text,
    'Rejected: artifact does not satisfy finding.v1.\n- missing required property "failureScenario"\nFix and call again.',
  )
  assert.is(r.written, false)
  assert.is(await k.storage.get('artifacts', 'audit/appsec-reviewer'), undefined)
  const events = await k.storage.readEvents()
  assert.equal(
    events.map((e) => e.kind),
    ['contract_violation'],
  )
})

test('wave and agent are sanitised: ../../x stays inside the blackboard', async () => {
  assert.is(sanitizeName('../../x'), '%2E.%2F..%2Fx')
  assert.is(sanitizeName('..'), '%2E.')
  assert.is(sanitizeName('.hidden'), '%2Ehidden')
  assert.is(sanitizeName('a b/c\\d:e'), 'a%20b%2Fc%5Cd%3Ae')
  assert.is(sanitizeName('ok.name_1-2'), 'ok.name_1-2')
  const k = kernelFor()
  await k.blackboard.write({ wave: '../../x', agent: '../etc/passwd', schema: 'finding.v1', data: finding })
  const keys = (await k.storage.list('artifacts')).map((a) => `${a.wave}/${a.agent}`)
  assert.equal(keys, ['%2E.%2F..%2Fx/%2E.%2Fetc%2Fpasswd'])
})

// Issue 14, item 6: `a/b`, `a b`, `a-b` and `a\0b` all became `a-b`; `~`, `é` and `.` all `-`; names were cut at 80.
test('sanitising is one to one: names that differ never share an artifact; plain names stay as the seed shows them', async () => {
  assert.is(sanitizeName('audit'), 'audit')
  assert.is(sanitizeName('appsec-reviewer'), 'appsec-reviewer')
  const names = [
    'a/b',
    'a b',
    'a-b',
    'a\0b',
    'a%2Fb',
    'a%20b',
    '~',
    'é',
    '.',
    '-',
    '%',
    '%25',
    'e\u0301',
    '\uD800',
    '\uDBFF',
    'A',
    'a_b',
    'a.b',
    '..',
    '%2E.',
  ]
  const encoded = names.map((n) => sanitizeName(n))
  assert.is(new Set(encoded).size, names.length, encoded.join(' '))
  assert.equal(encoded.slice(0, 4), ['a%2Fb', 'a%20b', 'a-b', 'a%00b'])
  for (const e of encoded) assert.match(e, /^[A-Za-z0-9_%-][A-Za-z0-9._%-]*$/, 'one safe path segment')
  const k = kernelFor()
  for (const [i, agent] of names.entries())
    await k.blackboard.write({ wave: 'w', agent, schema: 'finding.v1', data: { ...finding, summary: `by ${i}` } })
  const stored = await k.storage.list('artifacts')
  assert.is(stored.length, names.length, 'one artifact each: nothing overwritten')
  for (const [i, agent] of names.entries()) {
    const read = await k.blackboard.read({ wave: 'w', agent })
    assert.is(read.artifacts.length, 1, agent)
    assert.is(read.artifacts[0]!.summary, `by ${i}`, `${JSON.stringify(agent)} reads its own artifact back`)
  }
})

test('a name over 80 characters is refused, never cut; one that encodes past 240 characters too', async () => {
  const k = kernelFor()
  assert.is(sanitizeName('x'.repeat(80)), 'x'.repeat(80))
  assert.throws(() => sanitizeName('x'.repeat(81), 'agent'), /agent is 81 characters; at most 80 are allowed/)
  assert.throws(() => sanitizeName('é'.repeat(41), 'wave'), /wave encodes to 246 characters .*at most 240/)
  await rejects(
    k.blackboard.write({ wave: 'w', agent: 'x'.repeat(81), schema: 'finding.v1', data: finding }),
    /agent must be at most 80 characters/,
  )
  await rejects(
    k.blackboard.write({ wave: 'é'.repeat(60), agent: 'a', schema: 'finding.v1', data: finding }),
    /wave encodes to 360 characters/,
  )
  assert.equal(await k.storage.list('artifacts'), [], 'nothing written')
})

test('read returns summaries by default: summary, then title, then goal, at most 400 characters', async () => {
  const k = kernelFor()
  await k.storage.put('contracts', 'note.v1', { id: 'note.v1', schema: { type: 'object' } })
  await k.blackboard.write({
    wave: 'plan',
    agent: 'a-summary',
    schema: 'note.v1',
    data: { summary: 'Six findings,\n two high.', title: 'ignored' },
  })
  await k.blackboard.write({ wave: 'plan', agent: 'b-title', schema: 'note.v1', data: { title: 'Only a title' } })
  await k.blackboard.write({ wave: 'plan', agent: 'c-goal', schema: 'note.v1', data: { goal: 'g'.repeat(500) } })
  await k.blackboard.write({ wave: 'plan', agent: 'd-none', schema: 'note.v1', data: { other: 1 } })
  await k.blackboard.write({
    wave: 'planb',
    agent: 'other-wave',
    schema: 'note.v1',
    data: { summary: 'not this wave' },
  })
  const r = await k.blackboard.read({ wave: 'plan' })
  const lines = r.text.split('\n')
  assert.is(lines.length, 8)
  assert.match(lines[0]!, /^- \*\*a-summary\.json\*\* · schema note\.v1 · by a-summary · ~\d+ tokens$/)
  assert.is(lines[1], '  Six findings, two high.')
  assert.is(lines[3], '  Only a title')
  assert.is(lines[5], `  ${'g'.repeat(399)}…`)
  assert.is(lines[7], '  (no summary field)')
  assert.is((await k.blackboard.read({ wave: 'plan', agent: 'b-title' })).artifacts.length, 1)
})

test('read with full returns each artifact verbatim in a fenced JSON block; an empty wave says so', async () => {
  const k = kernelFor()
  await k.blackboard.write({ wave: 'audit', agent: 'appsec', schema: 'finding.v1', data: finding })
  const r = await k.blackboard.read({ wave: 'audit', full: true })
  const stored = await k.storage.get('artifacts', 'audit/appsec')
  assert.is(r.text, `### appsec.json\n\`\`\`json\n${serializeArtifact(stored!.data).trimEnd()}\n\`\`\``)
  assert.is((await k.blackboard.read({ wave: 'nothing' })).text, 'No artifacts in wave "nothing".')
})

test('an unknown contract names the available ones', async () => {
  const k = kernelFor()
  try {
    await k.blackboard.write({ wave: 'w', agent: 'a', schema: 'nope.v1', data: {} })
    assert.unreachable()
  } catch (error) {
    assert.match(
      (error as Error).message,
      /Unknown contract "nope\.v1"\. Available: facts\.proposal\.v1, finding\.v1, handoff\.v1, review\.v1\./,
    )
  }
})

test.run()
