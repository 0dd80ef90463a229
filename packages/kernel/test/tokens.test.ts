import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { estimateTokens } from '../src/index.js'
import { utf8Bytes } from '../src/tokens.js'
import { kernelFor } from './helpers.js'

test('estimateTokens is ceil(length / 4)', () => {
  assert.is(estimateTokens(''), 0)
  assert.is(estimateTokens('abc'), 1)
  assert.is(estimateTokens('abcd'), 1)
  assert.is(estimateTokens('abcde'), 2)
})

test('utf8Bytes counts UTF-8 bytes', () => {
  assert.is(utf8Bytes('abc'), 3)
  assert.is(utf8Bytes('é'), 2)
  assert.is(utf8Bytes('€'), 3)
  assert.is(utf8Bytes('😀'), 4)
})

test('token report: the tool text and the CLI accounting, with the seed shapes and consistent figures', async () => {
  const k = kernelFor({}, { hints: { billedUsage: 'For billed usage see /cost and /usage.' } })
  for (const [i, t] of ['alpha', 'bravo', 'charlie'].entries())
    await k.memory.write({
      title: `Service ${t} owns its schema`,
      body: `Team ${t} migrates it. `.repeat(i + 1),
      type: 'convention',
    })
  await k.runbooks.put({ slug: 'deploy', title: 'Deploy', trigger: 'deploy', body: 'Steps.' })
  await k.blackboard.write({
    wave: 'w',
    agent: 'a',
    schema: 'finding.v1',
    data: { title: 't', severity: 'low', failureScenario: 'f' },
  })
  await k.memory.search({ query: 'schema' })
  const r = await k.tokens.report()
  const f = r.figures
  assert.is(f.facts, 3)
  assert.is(f.runbooks, 1)
  assert.is(f.eagerTokens, f.factTokens + f.runbookTokens + f.artifactTokens)
  assert.is(f.savingTokens, f.eagerTokens - f.indexTokens)
  assert.equal(
    f.events,
    { memory_write: 3, runbook_put: 1, blackboard_write: 1, memory_search: 1 },
    "every kind; the text lists the seed's",
  )
  assert.is(
    r.text,
    [
      '# Foundry token report',
      '',
      `- Memory index: ~${f.indexTokens} tokens of a 4000 budget (always in context)`,
      `- Facts stored: 3, ~${f.factTokens} tokens total (retrieved on demand only)`,
      `- Runbooks: 1, ~${f.runbookTokens} tokens (retrieved on demand only)`,
      `- Blackboard artifacts: ~${f.artifactTokens} tokens (never enter context wholesale)`,
      '- Recorded events: memory_write=3, blackboard_write=1, memory_search=1',
      '',
      `Loading all memory eagerly would cost ~${f.factTokens + f.runbookTokens + f.artifactTokens} tokens per session; the index-first path costs ~${f.indexTokens}.`,
    ].join('\n'),
  )
  assert.is(
    r.accounting,
    [
      'Foundry token accounting',
      '',
      `  memory index (always loaded)   ~${f.indexTokens} tokens  (budget 4000)`,
      `  facts, retrieved on demand     ~${f.factTokens} tokens across 3 facts`,
      `  runbooks, retrieved on demand  ~${f.runbookTokens} tokens`,
      `  blackboard artifacts           ~${f.artifactTokens} tokens (never loaded wholesale)`,
      '',
      `  eager loading would cost       ~${f.eagerTokens} tokens per session`,
      `  index-first costs              ~${f.indexTokens} tokens per session`,
      `  saving                         ~${f.savingTokens} tokens per session (${f.savingPercent}%)`,
      '',
      'Estimates use ~4 characters per token. For billed usage see /cost and /usage.',
    ].join('\n'),
  )
})

test('an empty project reports zeros and no events', async () => {
  const r = await kernelFor().tokens.report()
  assert.match(r.text, /- Facts stored: 0, ~0 tokens total/)
  assert.match(r.text, /- Recorded events: none/)
  assert.is(r.figures.savingPercent, 0)
})

test('with a session overhead (the MCP tool list): index-first counts it, a small project sees no saving, and the break-even fact count is printed', async () => {
  const k = kernelFor()
  await k.memory.write({
    title: 'Money is stored in integer cents',
    body: 'Never floats: rounding errors add up across invoices and refunds.',
    type: 'convention',
  })
  const small = await k.tokens.report({ sessionOverhead: { tokens: 3000, what: 'MCP tool list' } })
  const f = small.figures
  assert.is(f.indexFirstTokens, f.indexTokens + 3000)
  assert.is(f.savingTokens, 0)
  assert.ok(f.breakEvenFacts! > 1, String(f.breakEvenFacts))
  assert.match(
    small.accounting,
    new RegExp(
      `index-first costs +~${f.indexFirstTokens} tokens per session \\(the index ~${f.indexTokens} \\+ the MCP tool list ~3000\\)`,
    ),
  )
  assert.match(
    small.accounting,
    new RegExp(`saving +none yet: index-first costs ~${f.indexFirstTokens - f.eagerTokens} tokens more per session`),
  )
  assert.match(small.accounting, new RegExp(`break-even +at about ${f.breakEvenFacts} facts of this size \\(now 1\\)`))

  // Past the break-even, the saving is real: write that many facts of the same size and ask again.
  for (let i = 0; i < f.breakEvenFacts!; i++)
    await k.memory.write({
      title: `Service ${i} stores money in integer cents`,
      body: `Service ${i} never uses floats: rounding errors add up across invoices.`,
      type: 'convention',
    })
  const large = await k.tokens.report({ sessionOverhead: { tokens: 3000, what: 'MCP tool list' } })
  assert.ok(large.figures.eagerTokens > large.figures.indexFirstTokens, JSON.stringify(large.figures))
  assert.match(large.accounting, /saving +~\d+ tokens per session \(\d+%\)/)
  assert.not.match((await k.tokens.report()).accounting, /break-even/, 'no overhead given, no break-even line')
})

test.run()
