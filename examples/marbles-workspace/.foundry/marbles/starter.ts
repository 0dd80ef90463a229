// A starter workspace module: declarations only (importing it runs nothing).
import { Type } from 'typebox'
import { agent, monitor, schedule, workflow } from '@foundry/marbles'

/** An agent declared for part 2 of Marbles (harnesses); `marbles list` shows it. */
export const reviewer = agent({
  id: 'reviewer',
  instructions: 'Review the change and report findings as finding.v1 artifacts.',
  model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
})

/** An agent run by Claude Code (`marbles mcp` dispatches it): its prompt starts with the project's memory index, and foundry mcp is in its MCP config. */
export const summarizer = agent({
  id: 'summarizer',
  description: 'Summarizes an audit for the team',
  instructions: 'Summarize the audit in three sentences. Use memory_search for the decisions it touched.',
  model: { provider: 'claude-code', model: 'claude-sonnet-4-5' },
})

let calls = 0

/** The starter workflow: fetch (retried), remember (a fact in memory), report (a contract-checked artifact). */
export const audit = workflow({
  name: 'audit',
  description: 'Audit an area: fetch its numbers, remember the decision, report a finding',
  input: Type.Object({ area: Type.String({ pattern: '^[a-z-]+$' }), timeoutSeconds: Type.Integer({ minimum: 1 }) }),
  timeoutMs: 60_000,
  resumable: true,
  async run(ctx, input) {
    ctx.log.info(`auditing ${input.area}`)

    // 1. A flaky read: the first attempt fails, the retry policy tries again (each attempt is journaled).
    const numbers = await ctx.step(
      'fetch',
      async ({ attempt }) => {
        calls += 1
        if (attempt === 1) throw new Error('upstream answered 503')
        return { p99Ms: 2300, timeoutSeconds: input.timeoutSeconds, calls }
      },
      { retry: { attempts: 3, backoffMs: 50 } },
    )

    // 2. A fact in the project's memory.
    const written = await ctx.step('remember', async () => {
      const result = await ctx.kernel.memory.write({
        title: `The ${input.area} API timeout is ${input.timeoutSeconds} seconds`,
        body: `Measured p99 is ${numbers.p99Ms} ms.\nWhy: slower calls are abandoned by clients anyway.\nHow to apply: keep handlers under the timeout.`,
        type: 'decision',
        confidence: 'high',
        source: 'code',
      })
      return result.id
    })

    // 3. A blackboard artifact under the run's id, validated against the built-in finding.v1 contract.
    const report = await ctx.step('report', async () => {
      const result = await ctx.kernel.blackboard.write({
        wave: ctx.runId,
        agent: 'auditor',
        schema: 'finding.v1',
        data: {
          title: `${input.area} p99 close to its timeout`,
          severity: 'medium',
          summary: `p99 ${numbers.p99Ms} ms against a ${input.timeoutSeconds} s timeout`,
          failureScenario: 'A slow dependency pushes p99 past the timeout and clients retry into a storm.',
        },
      })
      if (!result.written) throw new Error(result.text)
      return result.path
    })
    return { fact: written, report, attempts: numbers.calls }
  },
})

/** What the schedule and the monitor dispatch. */
export const tick = workflow({
  name: 'tick',
  input: Type.Object({ from: Type.String() }),
  run: (ctx, input) => {
    ctx.log.info(`tick from ${input.from}`)
    return { from: input.from }
  },
})

/** Every second while `marbles serve` runs (a real project would say `cron: '0 3 * * *'`). */
export const everySecond = schedule({ name: 'every-second', workflow: tick, every: '1s', input: { from: 'schedule' } })

/** Dispatches `tick` once the memory holds a decision about timeouts. */
export const timeoutDecided = monitor({
  name: 'timeout-decided',
  workflow: tick,
  every: '200ms',
  poll: async ({ kernel }) =>
    (await kernel.memory.list({ type: 'decision' })).filter((f) => /timeout/i.test(f.title)).length,
  when: (count) => count > 0,
  input: () => ({ from: 'monitor' }),
})
