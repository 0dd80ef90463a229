import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { kernelFor } from './helpers.js'

const number = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1])

test('eager loading has one definition: facts + runbooks + blackboard artifacts, in the text, the figures and the accounting', async () => {
  const k = kernelFor()
  await k.memory.write({
    title: 'Money is stored in integer cents',
    body: 'All amounts are integer cents. '.repeat(5),
    type: 'convention',
  })
  await k.runbooks.put({ slug: 'deploy', title: 'Deploy', trigger: 'deploy', body: 'Steps.' })
  const summary = 'Six findings, two high. '.repeat(40)
  await k.blackboard.write({
    wave: 'audit',
    agent: 'appsec',
    schema: 'finding.v1',
    data: { title: 't', severity: 'low', failureScenario: 'f', summary },
  })
  const { text, accounting, figures: f } = await k.tokens.report()
  assert.ok(f.artifactTokens > 200, 'the artifact weighs enough to tell the definitions apart')
  assert.is(f.eagerTokens, f.factTokens + f.runbookTokens + f.artifactTokens)
  assert.is(number(text, /Loading all memory eagerly would cost ~(\d+) tokens/), f.eagerTokens, 'the tool text')
  assert.is(number(accounting, /eager loading would cost +~(\d+) tokens/), f.eagerTokens, 'foundry tokens')
  assert.is(f.savingTokens, f.eagerTokens - f.indexTokens)
  assert.is(number(accounting, /saving +~(\d+) tokens/), f.savingTokens)
  assert.is(f.savingPercent, Math.round((f.savingTokens / f.eagerTokens) * 100))
})

test.run()
