import { contractsPlugin } from './contracts/contracts.js'
import { definePlugin, type PluginHost } from './plugin.js'
import { BlackboardReadInputSchema, BlackboardWriteInputSchema } from './schema/inputs.js'
import type { Artifact } from './schema/records.js'
import { validator } from './schema/validate.js'
import { estimateTokens, utf8Bytes } from './tokens.js'

export interface BlackboardWriteResult {
  text: string
  written: boolean
  path?: string
  bytes?: number
  tokens?: number
  violations: string[]
}

export interface ArtifactSummary {
  file: string
  wave: string
  agent: string
  schema: string | undefined
  producedBy: string | undefined
  tokens: number
  summary: string | undefined
}

export interface BlackboardReadResult {
  text: string
  wave: string
  artifacts: ArtifactSummary[]
}

const writeInput = validator(BlackboardWriteInputSchema)
const readInput = validator(BlackboardReadInputSchema)
const SUMMARY_MAX = 400

/**
 * A wave or agent name made safe as one path segment: anything outside [A-Za-z0-9._-] becomes `-`,
 * truncated to 80 characters, and leading dots become `-` so `..` can never name a parent folder.
 */
export function sanitizeName(name: string): string {
  return name
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 80)
    .replace(/^\.+/, (dots) => '-'.repeat(dots.length))
}

/** The exact bytes an artifact is stored as: pretty JSON and a final newline. Adapters write this. */
export function serializeArtifact(data: Record<string, unknown>): string {
  return `${JSON.stringify(data, null, 2)}\n`
}

/** The summary line: `summary`, else `title`, else `goal`, whitespace folded, at most 400 characters. */
export function summaryLine(data: Record<string, unknown>): string | undefined {
  for (const field of ['summary', 'title', 'goal']) {
    const value = data[field]
    if (typeof value === 'string' && value.trim()) {
      const line = value.replace(/\s+/g, ' ').trim()
      return line.length > SUMMARY_MAX ? `${line.slice(0, SUMMARY_MAX - 1)}…` : line
    }
  }
  return undefined
}

/** The blackboard: wave artifacts agents hand each other, validated against their contract. */
export interface BlackboardService {
  /** `blackboard_write`: validate against the contract, then store. A rejected artifact is a result, not an error. */
  write(input: unknown): Promise<BlackboardWriteResult>
  /** `blackboard_read`: a wave's artifacts, summaries first (`full` for the artifacts themselves). */
  read(input: unknown): Promise<BlackboardReadResult>
  /** Every artifact of every wave, summarised. */
  all(): Promise<ArtifactSummary[]>
}

export function createBlackboard(ctx: PluginHost): BlackboardService {
  const contracts = ctx.use(contractsPlugin)
  const display = (location: string) => {
    const root = ctx.root?.replace(/[\\/]+$/, '')
    return root && location.startsWith(`${root}/`) ? location.slice(root.length + 1) : location
  }

  async function write(raw: unknown): Promise<BlackboardWriteResult> {
    const input = writeInput.parse(raw, 'blackboard_write input')
    const wave = sanitizeName(input.wave)
    const agent = sanitizeName(input.agent)
    const data = { ...input.data, schema: input.schema, producedBy: agent }
    const violations = await contracts.violations(input.schema, data)
    if (violations.length) {
      const text = [`Rejected: artifact does not satisfy ${input.schema}.`, ...violations.map((v) => `- ${v}`), 'Fix and call again.'].join('\n')
      return { text, written: false, violations }
    }
    const key = `${wave}/${agent}`
    const artifact: Artifact = { wave, agent, data }
    await ctx.storage.put('artifacts', key, artifact)
    const serialized = serializeArtifact(data)
    const bytes = utf8Bytes(serialized)
    const tokens = estimateTokens(serialized)
    const path = display(ctx.storage.locate('artifacts', key))
    const text = `Wrote ${path} (${bytes} bytes, ~${tokens} tokens).\nReturn to your caller ONLY this path and a summary of at most ${ctx.config.handoffSummaryTokenBudget} tokens.`
    return { text, written: true, path, bytes, tokens, violations: [] }
  }

  async function read(raw: unknown): Promise<BlackboardReadResult> {
    const input = readInput.parse(raw, 'blackboard_read input')
    const wave = sanitizeName(input.wave)
    const agent = input.agent === undefined ? undefined : sanitizeName(input.agent)
    const artifacts = (await ctx.storage.list('artifacts', { prefix: `${wave}/`, onProblem: ctx.onProblem })).filter(
      (a) => a.wave === wave && (agent === undefined || a.agent === agent),
    )
    const summaries = artifacts.map(summarize)
    if (!artifacts.length) {
      const who = agent ? ` by ${agent}` : ''
      return { text: `No artifacts in wave "${wave}"${who}.`, wave, artifacts: [] }
    }
    const text = input.full
      ? artifacts.map((a) => `### ${a.agent}.json\n\`\`\`json\n${serializeArtifact(a.data).trimEnd()}\n\`\`\``).join('\n\n')
      : summaries
          .map((s) => `- **${s.file}** · schema ${s.schema ?? '(none)'} · by ${s.producedBy ?? s.agent} · ~${s.tokens} tokens\n  ${s.summary ?? '(no summary field)'}`)
          .join('\n')
    return { text, wave, artifacts: summaries }
  }

  /** Every artifact of every wave, summarised (for the token report). */
  async function all(): Promise<ArtifactSummary[]> {
    return (await ctx.storage.list('artifacts', { onProblem: ctx.onProblem })).map(summarize)
  }

  return { write, read, all }
}

function summarize(a: Artifact): ArtifactSummary {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
  return {
    file: `${a.agent}.json`,
    wave: a.wave,
    agent: a.agent,
    schema: str(a.data.schema),
    producedBy: str(a.data.producedBy),
    tokens: estimateTokens(serializeArtifact(a.data)),
    summary: summaryLine(a.data),
  }
}

export const blackboardPlugin = definePlugin({
  name: 'blackboard',
  needs: [contractsPlugin],
  setup: createBlackboard,
  trace: {
    write: {
      kind: 'blackboard_write',
      kindOf: (r) => (r.written ? 'blackboard_write' : 'contract_violation'),
      data: (r) => (r.written ? { path: r.path, tokens: r.tokens } : { violations: r.violations.length }),
    },
    read: { kind: 'blackboard_read', data: (r) => ({ artifacts: r.artifacts.length }) },
  },
})
