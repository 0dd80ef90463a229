import { blackboardPlugin } from './blackboard.js'
import { renderFactBlock } from './memory/facts.js'
import { memoryPlugin } from './memory/memory.js'
import { definePlugin, type PluginHost } from './plugin.js'
import { EVENT_KINDS } from './schema/event.js'
import { renderRunbook } from './runbooks.js'
import { estimateTokens } from './tokens.js'

export interface TokenFigures {
  indexTokens: number
  indexBudget: number
  facts: number
  factTokens: number
  runbooks: number
  runbookTokens: number
  artifacts: number
  artifactTokens: number
  /** Event counts by kind, in order of first appearance in the log. */
  events: Record<string, number>
  /**
   * What loading all memory eagerly at session start would cost: every fact, every runbook and every
   * blackboard artifact (what a session without the index and the firewall reads). The one definition:
   * the tool's text, the accounting table and `savingTokens` all use this figure. It is the seed's:
   * its token_report example counts 9700 fact tokens + 24800 artifact tokens as ~34500.
   */
  eagerTokens: number
  /** What the index-first path costs: the index, and the session's fixed overhead when one was given (the MCP tool list). */
  indexFirstTokens: number
  savingTokens: number
  savingPercent: number
  /** The fixed cost every index-first session pays besides the index (`ReportOptions.sessionOverhead`). */
  overhead?: SessionOverhead
  /**
   * With an overhead: about how many facts of the project's average size the project needs before
   * index-first costs less than eager loading (each fact adds its block to eager, its index line to
   * index-first); undefined when facts cost less than their index lines.
   */
  breakEvenFacts?: number
  /** Agent runs' usage, from `<consumer>.usage` events (`usageFigures`); absent when none was recorded. */
  usage?: UsageFigures
}

/** Tokens and cost of agent runs a consumer recorded: one `<consumer>.usage` event a run. */
export interface UsageRun {
  /** The consumer: `marbles` for `marbles.usage`. */
  source: string
  runId: string
  agent: string
  inputTokens: number
  outputTokens: number
  costUsd?: number
}

export interface UsageFigures {
  /** Newest first. */
  runs: UsageRun[]
  /** Totals by `source` and agent, most tokens first. */
  agents: Array<Omit<UsageRun, 'runId'> & { runs: number }>
  inputTokens: number
  outputTokens: number
  costUsd: number
}

/**
 * A general seam, not knowledge of any consumer: an event `<consumer>.usage` whose data holds
 * `runId`, `agent`, `inputTokens`, `outputTokens` and maybe `costUsd` is one agent run's usage.
 * Undefined when there is none.
 */
export function usageFigures(
  events: ReadonlyArray<{ kind: string; data?: Record<string, unknown> }>,
): UsageFigures | undefined {
  const runs: UsageRun[] = []
  for (const e of events) {
    if (!e.kind.endsWith('.usage') || !e.data) continue
    const { runId, agent, inputTokens, outputTokens, costUsd } = e.data
    if (typeof runId !== 'string' || typeof inputTokens !== 'number' || typeof outputTokens !== 'number') continue
    runs.push({
      source: e.kind.slice(0, -'.usage'.length),
      runId,
      agent: typeof agent === 'string' ? agent : '?',
      inputTokens,
      outputTokens,
      ...(typeof costUsd === 'number' && { costUsd }),
    })
  }
  if (!runs.length) return undefined
  const agents = new Map<string, UsageFigures['agents'][number]>()
  for (const run of runs) {
    const key = `${run.source}\u0000${run.agent}`
    const sum = agents.get(key) ?? { source: run.source, agent: run.agent, runs: 0, inputTokens: 0, outputTokens: 0 }
    sum.runs++
    sum.inputTokens += run.inputTokens
    sum.outputTokens += run.outputTokens
    if (run.costUsd !== undefined) sum.costUsd = (sum.costUsd ?? 0) + run.costUsd
    agents.set(key, sum)
  }
  return {
    runs: runs.reverse(),
    agents: [...agents.values()].sort((a, b) => b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens)),
    inputTokens: runs.reduce((n, r) => n + r.inputTokens, 0),
    outputTokens: runs.reduce((n, r) => n + r.outputTokens, 0),
    costUsd: runs.reduce((n, r) => n + (r.costUsd ?? 0), 0),
  }
}

export interface TokenReport {
  /** The `token_report` tool's text. */
  text: string
  /** The accounting table (the CLI's `tokens` command prints it). */
  accounting: string
  figures: TokenFigures
}

/** A fixed cost every index-first session pays besides the index: the MCP server's `tools/list`, say. */
export interface SessionOverhead {
  tokens: number
  /** What it is, for the accounting table (`MCP tool list`). */
  what: string
}

export interface ReportOptions {
  /** Counted in the index-first cost, with the break-even fact count: what a host knows each session pays. */
  sessionOverhead?: SessionOverhead
}

/** A fact block and an index line of a typical fact, for the break-even of a project with none yet. */
const TYPICAL = { factTokens: 60, indexLineTokens: 15 }

/** Token accounting for the project: what is always loaded, what is on demand, what eager loading would cost. */
export interface TokenService {
  /** `token_report`: the figures, the tool's text and the accounting table. */
  report(options?: ReportOptions): Promise<TokenReport>
}

export function createTokenReport(ctx: PluginHost): TokenService {
  const memory = ctx.use(memoryPlugin)
  const blackboard = ctx.use(blackboardPlugin)
  return { report }
  async function report(options: ReportOptions = {}): Promise<TokenReport> {
    const [index, facts, runbooks, artifacts, events] = await Promise.all([
      memory.readIndex(),
      memory.list(),
      ctx.storage.list('runbooks', { onProblem: ctx.onProblem }),
      blackboard.all(),
      ctx.storage.readEvents(),
    ])
    const counts: Record<string, number> = {}
    // What happened: an operation that failed is recorded (with its error code in `status`) but not counted.
    for (const e of events) if ((e.data?.status ?? 'ok') === 'ok') counts[e.kind] = (counts[e.kind] ?? 0) + 1
    const indexTokens = estimateTokens(index)
    const factTokens = facts.reduce((n, f) => n + estimateTokens(renderFactBlock(f)), 0)
    const runbookTokens = runbooks.reduce((n, r) => n + estimateTokens(renderRunbook(r)), 0)
    const artifactTokens = artifacts.reduce((n, a) => n + a.tokens, 0)
    const eagerTokens = factTokens + runbookTokens + artifactTokens // see TokenFigures.eagerTokens
    const overhead = options.sessionOverhead
    const indexFirstTokens = indexTokens + (overhead?.tokens ?? 0)
    const savingTokens = Math.max(0, eagerTokens - indexFirstTokens)
    const usage = usageFigures(events)
    const figures: TokenFigures = {
      indexTokens,
      indexBudget: ctx.config.indexTokenBudget,
      facts: facts.length,
      factTokens,
      runbooks: runbooks.length,
      runbookTokens,
      artifacts: artifacts.length,
      artifactTokens,
      events: counts,
      eagerTokens,
      indexFirstTokens,
      savingTokens,
      savingPercent: eagerTokens ? Math.round((savingTokens / eagerTokens) * 100) : 0,
      ...(overhead && { overhead }),
      ...(overhead && breakEven(overhead.tokens, facts.length, factTokens, indexTokens)),
      ...(usage && { usage }),
    }
    return { text: toolText(figures), accounting: accountingText(figures, ctx.hints.billedUsage), figures }
  }
}

/**
 * About how many facts make index-first cheaper than eager loading despite `overhead`: each fact adds
 * its block to eager loading and its index line to the index (measured on the project's facts, a
 * typical fact's figures while it has none). An upper estimate: the index stops growing at its budget.
 */
function breakEven(
  overhead: number,
  facts: number,
  factTokens: number,
  indexTokens: number,
): { breakEvenFacts?: number } {
  const perFact = facts ? factTokens / facts : TYPICAL.factTokens
  const perLine = facts ? indexTokens / facts : TYPICAL.indexLineTokens
  return perFact > perLine
    ? { breakEvenFacts: Math.ceil((overhead + (facts ? 0 : indexTokens)) / (perFact - perLine)) }
    : {}
}

export const tokensPlugin = definePlugin({
  name: 'tokens',
  needs: [memoryPlugin, blackboardPlugin],
  setup: createTokenReport,
  trace: { report: 'token_report' },
})

/** The seed's "Recorded events" line counts the kinds it lists; operation timings and consumers' events are in `figures.events`. */
const SEED_KINDS: ReadonlySet<string> = new Set(EVENT_KINDS)

function toolText(f: TokenFigures): string {
  const events = Object.entries(f.events).filter(([kind]) => SEED_KINDS.has(kind))
  return [
    '# Foundry token report',
    '',
    `- Memory index: ~${f.indexTokens} tokens of a ${f.indexBudget} budget (always in context)`,
    `- Facts stored: ${f.facts}, ~${f.factTokens} tokens total (retrieved on demand only)`,
    ...(f.runbooks ? [`- Runbooks: ${f.runbooks}, ~${f.runbookTokens} tokens (retrieved on demand only)`] : []),
    `- Blackboard artifacts: ~${f.artifactTokens} tokens (never enter context wholesale)`,
    `- Recorded events: ${events.length ? events.map(([k, n]) => `${k}=${n}`).join(', ') : 'none'}`,
    '',
    `Loading all memory eagerly would cost ~${f.eagerTokens} tokens per session; the index-first path costs ~${f.indexTokens}.`,
    ...(f.usage ? ['', ...usageLines(f.usage).map((l) => `- ${l}`)] : []),
  ].join('\n')
}

function accountingText(f: TokenFigures, billedUsage: string): string {
  const row = (label: string, value: string) => `  ${label.padEnd(31)}${value}`
  return [
    'Foundry token accounting',
    '',
    row('memory index (always loaded)', `~${f.indexTokens} tokens  (budget ${f.indexBudget})`),
    row('facts, retrieved on demand', `~${f.factTokens} tokens across ${f.facts} facts`),
    row('runbooks, retrieved on demand', `~${f.runbookTokens} tokens`),
    row('blackboard artifacts', `~${f.artifactTokens} tokens (never loaded wholesale)`),
    '',
    row('eager loading would cost', `~${f.eagerTokens} tokens per session`),
    row(
      'index-first costs',
      `~${f.indexFirstTokens} tokens per session${f.overhead ? ` (the index ~${f.indexTokens} + the ${f.overhead.what} ~${f.overhead.tokens})` : ''}`,
    ),
    f.indexFirstTokens > f.eagerTokens
      ? row('saving', `none yet: index-first costs ~${f.indexFirstTokens - f.eagerTokens} tokens more per session`)
      : row('saving', `~${f.savingTokens} tokens per session (${f.savingPercent}%)`),
    ...(f.overhead
      ? [
          row(
            'break-even',
            f.breakEvenFacts === undefined
              ? 'never at this fact size: facts cost less than their index lines'
              : `at about ${f.breakEvenFacts} facts of this size (now ${f.facts})`,
          ),
        ]
      : []),
    '',
    ...(f.usage
      ? [
          'agent runs (recorded usage)',
          ...usageLines(f.usage).map((l) => `  ${l}`),
          ...f.usage.runs
            .slice(0, 10)
            .map(
              (r) =>
                `    ${r.runId}  ${r.source} ${r.agent}: ${r.inputTokens} in + ${r.outputTokens} out${cost(r.costUsd)}`,
            ),
          '',
        ]
      : []),
    `Estimates use ~4 characters per token. ${billedUsage}`,
  ].join('\n')
}

const cost = (usd: number | undefined) => (usd !== undefined ? `, $${usd.toFixed(4)}` : '')

/** Agent runs: the total, then one line an agent. */
function usageLines(u: UsageFigures): string[] {
  return [
    `Agent runs: ${u.runs.length}, ${u.inputTokens} input + ${u.outputTokens} output tokens${u.costUsd ? `, $${u.costUsd.toFixed(4)}` : ''}`,
    ...u.agents.map(
      (a) =>
        `${a.source} agent ${a.agent}: ${a.runs} run${a.runs === 1 ? '' : 's'}, ${a.inputTokens} input + ${a.outputTokens} output tokens${cost(a.costUsd)}`,
    ),
  ]
}
