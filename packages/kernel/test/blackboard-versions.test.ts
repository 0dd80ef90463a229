import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { FoundryError, isFoundryError, memoryStorage, serializeArtifact } from '../src/index.js'
import { kernelFor } from './helpers.js'

const finding = (n: number) => ({
  title: `Finding ${n}`,
  severity: 'high',
  failureScenario: `Scenario ${n}.`,
  summary: `Round ${n} of the audit.`,
})
const write = (k: ReturnType<typeof kernelFor>, n: number, agent = 'appsec') =>
  k.blackboard.write({ wave: 'audit', agent, schema: 'finding.v1', data: finding(n) })
const stored = (n: number, agent = 'appsec') => ({ ...finding(n), schema: 'finding.v1', producedBy: agent })

async function rejects(promise: Promise<unknown>, code: string, message: RegExp) {
  try {
    await promise
    assert.unreachable('should reject')
  } catch (error) {
    assert.ok(isFoundryError(error), String(error))
    assert.is((error as FoundryError).code, code)
    assert.match((error as Error).message, message)
  }
}

test('a new artifact: the seed\'s "Wrote" lines, version 1', async () => {
  const k = kernelFor()
  const r = await write(k, 1)
  assert.match(
    r.text,
    /^Wrote memory:\/\/artifacts\/audit\/appsec \(\d+ bytes, ~\d+ tokens\)\.\nReturn to your caller ONLY this path and a summary of at most 300 tokens\.$/,
  )
  assert.equal([r.version, r.replaced], [1, false])
})

test('writing over the same agent and wave says "Replaced" first and keeps the previous artifact as a version', async () => {
  const k = kernelFor()
  await write(k, 1)
  const r = await write(k, 2)
  const lines = r.text.split('\n')
  assert.match(lines[0]!, /^Replaced memory:\/\/artifacts\/audit\/appsec \(\d+ bytes, ~\d+ tokens\)\.$/)
  assert.is(lines[1], 'Return to your caller ONLY this path and a summary of at most 300 tokens.')
  assert.is(
    lines[2],
    'This is version 2; version 1, the one it replaced, stays readable: blackboard_read with agent "appsec" and version 1.',
  )
  assert.equal([r.written, r.version, r.replaced], [true, 2, true])
  assert.equal((await k.storage.get('artifacts', 'audit/appsec'))?.data, stored(2))
  const kept = (await k.storage.get('blackboard.history', 'audit/appsec/1')) as Record<string, unknown>
  assert.equal([kept.version, kept.data], [1, stored(1)])
  assert.match(String(kept.replaced), /^\d{4}-\d\d-\d\dT/)
  const events = (await k.storage.readEvents()).filter((e) => e.kind === 'blackboard_write')
  assert.equal(
    events.map((e) => e.data?.version),
    [undefined, 2],
    'a replacement records its version',
  )
})

test('writing the same artifact again changes nothing and says "Unchanged"', async () => {
  const k = kernelFor()
  await write(k, 1)
  await write(k, 2)
  const r = await write(k, 2)
  assert.match(
    r.text,
    /^Unchanged memory:\/\/artifacts\/audit\/appsec \(\d+ bytes, ~\d+ tokens\)\.\nReturn to your caller ONLY/,
  )
  assert.match(r.text, /\nIt already held this artifact \(version 2\): nothing was replaced\.$/)
  assert.equal([r.version, r.replaced], [2, false])
  assert.equal(await k.storage.keys('blackboard.history'), ['audit/appsec/1'])
})

test('read shows the version of a replaced artifact; agent and version read any earlier one back', async () => {
  const k = kernelFor()
  for (const n of [1, 2, 3]) await write(k, n)
  await write(k, 9, 'appsec-2') // a neighbour whose name starts the same: its own versions
  const wave = await k.blackboard.read({ wave: 'audit' })
  assert.equal(
    wave.artifacts.map((a) => [a.agent, a.version]),
    [
      ['appsec', 3],
      ['appsec-2', 1],
    ],
  )
  assert.equal(wave.text.split('\n').slice(0, 3), [
    `- **appsec.json** · schema finding.v1 · by appsec · ~${wave.artifacts[0]!.tokens} tokens`,
    '  Round 3 of the audit.',
    '  version 3: it replaced versions 1 to 2, still readable (pass agent and version)',
  ])
  assert.is(wave.text.split('\n').length, 5, "an artifact never replaced keeps the seed's two lines")

  const first = await k.blackboard.read({ wave: 'audit', agent: 'appsec', version: 1 })
  assert.is(
    first.text,
    `- **appsec.json** · version 1 of 3 · schema finding.v1 · by appsec · ~${Math.ceil(serializeArtifact(stored(1)).length / 4)} tokens\n  Round 1 of the audit.`,
  )
  assert.equal([first.artifacts[0]!.version, first.artifacts[0]!.summary], [1, 'Round 1 of the audit.'])
  const full = await k.blackboard.read({ wave: 'audit', agent: 'appsec', version: 2, full: true })
  assert.is(
    full.text,
    `### appsec.json (version 2 of 3)\n\`\`\`json\n${serializeArtifact(stored(2)).trimEnd()}\n\`\`\``,
  )
  const current = await k.blackboard.read({ wave: 'audit', agent: 'appsec', version: 3 })
  assert.match(current.text, /^- \*\*appsec\.json\*\* · version 3 of 3 · .*\n {2}Round 3 of the audit\.$/)
  assert.match(
    (await k.blackboard.read({ wave: 'audit', agent: 'appsec', full: true })).text,
    /^### appsec\.json \(version 3\)\n/,
  )
})

test('a version that does not exist, or a version without agent, is an error naming the fix', async () => {
  const k = kernelFor()
  await write(k, 1)
  await write(k, 2)
  await rejects(
    k.blackboard.read({ wave: 'audit', agent: 'appsec', version: 3 }),
    'NOT_FOUND',
    /^version 3 of audit\/appsec does not exist: it has versions 1 to 2$/,
  )
  await rejects(k.blackboard.read({ wave: 'audit', version: 1 }), 'INVALID_INPUT', /version needs agent/)
  await rejects(k.blackboard.read({ wave: 'audit', agent: 'appsec', version: 0 }), 'INVALID_INPUT', /version/)
  assert.is(
    (await k.blackboard.read({ wave: 'audit', agent: 'nobody', version: 1 })).text,
    'No artifacts in wave "audit" by nobody.',
  )
})

test('concurrent replacements keep every artifact: versions are never reused', async () => {
  const k = kernelFor()
  await Promise.all([1, 2, 3, 4, 5].map((n) => write(k, n)))
  const kept = await Promise.all(
    [1, 2, 3, 4].map((v) => k.blackboard.read({ wave: 'audit', agent: 'appsec', version: v })),
  )
  const current = await k.blackboard.read({ wave: 'audit', agent: 'appsec' })
  const rounds = [...kept, current].map((r) => r.artifacts[0]!.summary)
  assert.equal(
    rounds.sort(),
    [1, 2, 3, 4, 5].map((n) => `Round ${n} of the audit.`),
  )
  assert.is(current.artifacts[0]!.version, 5)
})

test('the token report counts current artifacts only', async () => {
  const k = kernelFor()
  for (const n of [1, 2, 3]) await write(k, n)
  const f = (await k.tokens.report()).figures
  assert.is(f.artifacts, 1)
  assert.is(f.artifactTokens, Math.ceil(serializeArtifact(stored(3)).length / 4))
})

test('a previous artifact that cannot be read is replaced, and the answer says it was not kept', async () => {
  const storage = memoryStorage()
  const broken = {
    ...storage,
    get: (async (collection: string, key: string) => {
      if (collection === 'artifacts') throw new FoundryError('CORRUPT', `blackboard/${key}.json is not valid JSON`)
      return storage.get(collection as 'meta', key)
    }) as typeof storage.get,
  }
  const k = kernelFor({}, { storage: broken })
  await storage.put('artifacts', 'audit/appsec', { wave: 'audit', agent: 'appsec', data: {} })
  const r = await write(k, 1)
  assert.match(r.text, /^Replaced /)
  assert.match(
    r.text,
    /\nThe artifact it replaced could not be read \(blackboard\/audit\/appsec\.json is not valid JSON\), so it was not kept\.$/,
  )
  assert.equal([r.version, r.replaced], [1, true])
  assert.equal((await storage.get('artifacts', 'audit/appsec'))?.data, stored(1))
})

test.run()
