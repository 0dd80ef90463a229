// A custom agent loop that embeds the Foundry kernel as a library: no MCP, no CLI. The loop gives
// each agent the memory index up front, the facts its task needs on demand, and hands work between
// agents through the blackboard, where contracts reject incomplete artifacts. The "model" is a
// scripted stand-in so the example is deterministic; put your LLM call where it is.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { createKernel } from '@foundry/kernel'

const root = mkdtempSync(join(tmpdir(), 'foundry-embed-'))
// The composition root of this program: the folder layout under <root>/.foundry, MiniSearch retrieval (the default).
const kernel = createKernel({ storage: fsStorage({ root }), root })

/** The stand-in model: what an agent answers given its task, the index, the facts found, and any rejection. */
function model({ agent, task, facts, rejection }) {
  if (agent === 'architect')
    return {
      reply: 'Use Flyway for migrations.',
      remember: [
        {
          title: 'Persistence layer uses Flyway, not Liquibase',
          body: 'Plain-SQL migrations the team already reads.\nWhy: reviewers read SQL, not XML.\nHow to apply: add migrations as V<n>__<name>.sql.',
          type: 'decision',
          confidence: 'high',
          source: 'adr-0007',
        },
      ],
    }
  if (agent === 'implementer') {
    const decision = facts.find((f) => f.type === 'decision')
    return {
      reply: decision
        ? `Following ${decision.id}: writing V1__orders.sql for Flyway.`
        : 'No decision found: asking the architect.',
    }
  }
  // The reviewer hands over a finding; its first draft forgets how the bug fails in practice.
  const finding = {
    title: 'Orders endpoint lacks access control',
    severity: 'high',
    summary: `${task}: one high finding on /api/orders.`,
  }
  return {
    handoff: rejection
      ? { ...finding, failureScenario: 'A customer requests /api/orders/42 and reads another customer’s order.' }
      : finding,
  }
}

/** One turn of the loop: context in, the model, then memory and blackboard writes out. */
async function turn(agent, task) {
  const index = await kernel.memory.readIndex() // what a session starts with: one line a fact, capped
  const { hits } = await kernel.memory.search({ query: task, limit: 3 }) // full facts only when the task needs them
  let answer = model({ agent, task, index, facts: hits.map((h) => h.fact) })
  for (const fact of answer.remember ?? [])
    console.log(`${agent}: ${(await kernel.memory.write(fact)).text.split('\n')[0]}`)
  if (answer.reply) console.log(`${agent}: ${answer.reply}`)
  if (!answer.handoff) return answer
  let written = await kernel.blackboard.write({ wave: 'review', agent, schema: 'finding.v1', data: answer.handoff })
  if (!written.written) {
    console.log(`${agent}: ${written.text.split('\n').slice(0, 2).join(' ')}`)
    answer = model({ agent, task, index, facts: hits.map((h) => h.fact), rejection: written.violations })
    written = await kernel.blackboard.write({ wave: 'review', agent, schema: 'finding.v1', data: answer.handoff })
  }
  console.log(`${agent}: ${written.text.split('\n')[0]}`)
  return { ...answer, written }
}

try {
  await turn('architect', 'Choose the database migration tool')
  const implementer = await turn('implementer', 'Which migration tool do we use for the orders table?')
  assert.match(implementer.reply, /^Following fact-0001/, 'the implementer found the decision in memory')

  const reviewer = await turn('reviewer', 'Review the orders API')
  assert.ok(reviewer.written.written, 'the corrected finding passed its contract')
  assert.equal(reviewer.written.path, '.foundry/blackboard/review/reviewer.json')

  // The orchestrator reads summaries, never whole artifacts, unless it asks for `full`.
  const wave = await kernel.blackboard.read({ wave: 'review' })
  console.log(`orchestrator reads:\n${wave.text}`)
  assert.equal(wave.artifacts.length, 1)
  assert.match(wave.text, /one high finding on \/api\/orders/)

  const { figures } = await kernel.tokens.report()
  console.log(
    `tokens: index ~${figures.indexTokens}, facts ~${figures.factTokens} on demand, artifacts ~${figures.artifactTokens} never loaded wholesale`,
  )
  // The seed's events, counted; every operation is also timed under its own kind (blackboard_read, …).
  const { memory_search, memory_write, contract_violation, blackboard_write } = figures.events
  assert.deepEqual(
    { memory_search, memory_write, contract_violation, blackboard_write },
    { memory_search: 3, memory_write: 1, contract_violation: 1, blackboard_write: 1 },
  )
  assert.equal(figures.events.blackboard_read, 1)
  console.log('embed-kernel: ok')
} finally {
  await kernel.close()
  rmSync(root, { recursive: true, force: true })
}
