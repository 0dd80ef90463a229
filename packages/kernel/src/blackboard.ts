import { isoTime } from './clock.js'
import type { Static } from 'typebox'
import { Type } from './schema/typebox.js'
import { contractsPlugin } from './contracts/contracts.js'
import { FoundryError, isFoundryError } from './errors.js'
import { ARTIFACT_MAX_BYTES, assertJsonWithin, formatBytes, READ_FULL_MAX_BYTES } from './limits.js'
import { definePlugin, type PluginHost } from './plugin.js'
import { BlackboardReadInputSchema, BlackboardWriteInputSchema } from './schema/inputs.js'
import type { Artifact } from './schema/records.js'
import type { JsonValue } from './storage.js'
import { lazySchema } from './schema/lazy.js'
import { lazyValidator } from './schema/validate.js'
import { estimateTokens, utf8Bytes } from './tokens.js'

export interface BlackboardWriteResult {
  text: string
  written: boolean
  path?: string
  bytes?: number
  tokens?: number
  /** The artifact's version once written: 1 for a new one; one more each time a different artifact replaces it. */
  version?: number
  /** True when an earlier, different artifact of the same agent and wave was replaced (and kept as `version - 1`). */
  replaced?: boolean
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
  /** 1 for an artifact never replaced; the current one of an agent whose earlier artifacts were kept is the highest. */
  version: number
}

export interface BlackboardReadResult {
  text: string
  wave: string
  artifacts: ArtifactSummary[]
}

const writeInput = lazyValidator(BlackboardWriteInputSchema)
const readInput = lazyValidator(BlackboardReadInputSchema)
const SUMMARY_MAX = 400
/** The longest wave or agent name, in characters: a longer one is refused, never cut (two cut names could collide). */
export const NAME_MAX_CHARS = 80
/** The longest a name may become once encoded (a file name, with `.json`, stays within 255 bytes). */
export const ENCODED_NAME_MAX_CHARS = 240

/**
 * Where replaced artifacts are kept: the open collection `blackboard.history`, key
 * `<wave>/<agent>/<version>` (version 1 is the first written). Stored beside the project's data
 * (fs: `.foundry/data/blackboard.history/<wave>/<agent>/<version>.json`), so it travels with the
 * blackboard; `blackboard_read` with `agent` and `version` reads one back.
 */
const BLACKBOARD_HISTORY = 'blackboard.history'

/** A replaced artifact, as `blackboard.history` holds it. */
const ArtifactVersionSchema = lazySchema(() =>
  Type.Object(
    {
      wave: Type.String({ minLength: 1, maxLength: ENCODED_NAME_MAX_CHARS }),
      agent: Type.String({ minLength: 1, maxLength: ENCODED_NAME_MAX_CHARS }),
      version: Type.Integer({ minimum: 1 }),
      replaced: Type.String({ description: 'ISO 8601 timestamp: when a newer artifact replaced it' }),
      data: Type.Record(Type.String(), Type.Unknown()),
    },
    { additionalProperties: false },
  ),
)
type ArtifactVersion = Static<ReturnType<typeof ArtifactVersionSchema>>
const versionRecord = lazyValidator(ArtifactVersionSchema)

const PLAIN_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/
const KEPT_CHAR = /^[A-Za-z0-9_.-]$/

/**
 * A wave or agent name as one path segment, one to one: a plain name (of [A-Za-z0-9._-], not starting
 * with a dot) is itself (`audit`, `appsec-reviewer`); in any other name each character outside that
 * set, and a leading dot, is percent-encoded as its UTF-8 bytes (`a b` → `a%20b`, `a/b` → `a%2Fb`,
 * `é` → `%C3%A9`, `.` → `%2E`, `%` → `%25`; a lone surrogate `%uD800`). A plain name has no `%` and
 * an encoded one does, and encoding can be undone, so two names never share a file, and `..` or
 * `/` can never leave the blackboard. Throws INVALID_INPUT for an empty name, one over
 * `NAME_MAX_CHARS` characters, or one that encodes to more than `ENCODED_NAME_MAX_CHARS`.
 */
export function sanitizeName(name: string, field = 'name'): string {
  if (typeof name !== 'string' || !name)
    throw new FoundryError('INVALID_INPUT', `${field} is empty: name it with letters, digits, dot, underscore or dash`)
  if (name.length > NAME_MAX_CHARS)
    throw new FoundryError(
      'INVALID_INPUT',
      `${field} is ${name.length} characters; at most ${NAME_MAX_CHARS} are allowed (names are never cut, so two cannot collide): shorten it`,
    )
  if (PLAIN_NAME.test(name)) return name
  let out = ''
  for (const char of name) {
    if (KEPT_CHAR.test(char) && !(char === '.' && !out)) out += char
    else if (char.length === 1 && char >= '\uD800' && char <= '\uDFFF')
      out += `%u${char.charCodeAt(0).toString(16).toUpperCase()}`
    else for (const byte of utf8Of(char.codePointAt(0)!)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  if (out.length > ENCODED_NAME_MAX_CHARS)
    throw new FoundryError(
      'INVALID_INPUT',
      `${field} encodes to ${out.length} characters (each character outside [A-Za-z0-9._-] takes 3 to 12); at most ${ENCODED_NAME_MAX_CHARS}: use fewer such characters`,
    )
  return out
}

/** The UTF-8 bytes of one code point (no TextEncoder in the kernel's lib). */
function utf8Of(c: number): number[] {
  if (c < 0x80) return [c]
  if (c < 0x800) return [0xc0 | (c >> 6), 0x80 | (c & 63)]
  if (c < 0x10000) return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)]
  return [0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63)]
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

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
export function createBlackboard(ctx: PluginHost): BlackboardService {
  const contracts = ctx.use(contractsPlugin)
  const display = (location: string) => {
    const root = ctx.root?.replace(/[\\/]+$/, '')
    return root && location.startsWith(`${root}/`) ? location.slice(root.length + 1) : location
  }

  async function write(raw: unknown): Promise<BlackboardWriteResult> {
    const input = writeInput.parse(raw, 'blackboard_write input')
    const wave = sanitizeName(input.wave, 'wave')
    const agent = sanitizeName(input.agent, 'agent')
    const data = { ...input.data, schema: input.schema, producedBy: agent }
    // Before the contract (whose checks walk it) and before any write: deep or huge data is refused.
    assertJsonWithin(data, 'blackboard_write data', ARTIFACT_MAX_BYTES)
    const violations = await contracts.violations(input.schema, data)
    if (violations.length) {
      const text = [
        `Rejected: artifact does not satisfy ${input.schema}.`,
        ...violations.map((v) => `- ${v}`),
        'Fix and call again.',
      ].join('\n')
      return { text, written: false, violations }
    }
    const key = `${wave}/${agent}`
    const artifact: Artifact = { wave, agent, data }
    const serialized = serializeArtifact(data)
    // One section: two agents replacing the same artifact at once each keep the other's version.
    const outcome = await ctx.storage.exclusive(() => store(key, artifact, serialized))
    const bytes = utf8Bytes(serialized)
    const tokens = estimateTokens(serialized)
    const path = display(ctx.storage.locate('artifacts', key))
    const size = `(${bytes} bytes, ~${tokens} tokens).`
    const firewall = `Return to your caller ONLY this path and a summary of at most ${ctx.config.handoffSummaryTokenBudget} tokens.`
    // The seed's two lines for a new artifact; a replacement says so first and adds where the old one went.
    const lines =
      outcome.kind === 'new'
        ? [`Wrote ${path} ${size}`, firewall]
        : outcome.kind === 'unchanged'
          ? [
              `Unchanged ${path} ${size}`,
              firewall,
              `It already held this artifact (version ${outcome.version}): nothing was replaced.`,
            ]
          : [
              `Replaced ${path} ${size}`,
              firewall,
              outcome.unreadable === undefined
                ? `This is version ${outcome.version}; version ${outcome.version - 1}, the one it replaced, stays readable: blackboard_read with agent "${agent}" and version ${outcome.version - 1}.`
                : `The artifact it replaced could not be read (${outcome.unreadable}), so it was not kept.`,
            ]
    return {
      text: lines.join('\n'),
      written: true,
      path,
      bytes,
      tokens,
      version: outcome.version,
      replaced: outcome.kind === 'replaced',
      violations: [],
    }
  }

  type Stored =
    | { kind: 'new'; version: number }
    | { kind: 'unchanged'; version: number }
    | { kind: 'replaced'; version: number; unreadable?: string }

  /**
   * Inside the exclusive section: keep the artifact being replaced as the next version, then store
   * the new one. Versions count on from the highest kept, so numbers are never reused.
   */
  async function store(key: string, artifact: Artifact, serialized: string): Promise<Stored> {
    let previous: Artifact | undefined
    let unreadable: string | undefined
    try {
      previous = await ctx.storage.get('artifacts', key)
    } catch (error) {
      if (!isFoundryError(error, 'CORRUPT')) throw error
      unreadable = error.message // a hand-broken file cannot be kept; it is replaced, as before versions existed
    }
    const earlier = await latestVersion(`${key}/`)
    if (previous && serializeArtifact(previous.data) === serialized) return { kind: 'unchanged', version: earlier + 1 }
    if (previous) {
      const kept: ArtifactVersion = {
        wave: artifact.wave,
        agent: artifact.agent,
        version: earlier + 1,
        replaced: isoTime(ctx.now()),
        data: previous.data,
      }
      await ctx.storage.put(BLACKBOARD_HISTORY, `${key}/${earlier + 1}`, kept as unknown as JsonValue) // first: a crash before the next put loses nothing
      await ctx.storage.put('artifacts', key, artifact)
      return { kind: 'replaced', version: earlier + 2 }
    }
    await ctx.storage.put('artifacts', key, artifact)
    return unreadable === undefined
      ? { kind: 'new', version: earlier + 1 }
      : { kind: 'replaced', version: earlier + 1, unreadable }
  }

  /** The highest version kept under `prefix` (`<wave>/<agent>/`), 0 when none is. */
  async function latestVersion(prefix: string): Promise<number> {
    return Math.max(
      0,
      ...(await ctx.storage.keys(BLACKBOARD_HISTORY, prefix))
        .map((k) => Number(k.slice(prefix.length)))
        .filter(Number.isInteger),
    )
  }

  /** The highest kept version of every agent under `prefix` (a wave's `<wave>/`, or `''` for all), by `<wave>/<agent>`. */
  async function keptVersions(prefix: string): Promise<Map<string, number>> {
    const out = new Map<string, number>()
    for (const k of await ctx.storage.keys(BLACKBOARD_HISTORY, prefix)) {
      const cut = k.lastIndexOf('/')
      const n = Number(k.slice(cut + 1))
      if (Number.isInteger(n)) out.set(k.slice(0, cut), Math.max(n, out.get(k.slice(0, cut)) ?? 0))
    }
    return out
  }

  async function read(raw: unknown): Promise<BlackboardReadResult> {
    const input = readInput.parse(raw, 'blackboard_read input')
    const wave = sanitizeName(input.wave, 'wave')
    const agent = input.agent === undefined ? undefined : sanitizeName(input.agent, 'agent')
    if (input.version !== undefined && agent === undefined)
      throw new FoundryError(
        'INVALID_INPUT',
        'blackboard_read input: version needs agent (versions are kept per agent); pass the agent whose earlier artifact you want',
      )
    const [artifacts, kept] = await Promise.all([
      ctx.storage.list('artifacts', { prefix: `${wave}/`, onProblem: ctx.onProblem }),
      keptVersions(`${wave}/`),
    ])
    const mine = artifacts.filter((a) => a.wave === wave && (agent === undefined || a.agent === agent))
    const summaries = mine.map((a) => summarize(a, (kept.get(`${a.wave}/${a.agent}`) ?? 0) + 1))
    if (input.version !== undefined)
      return readVersion(
        wave,
        agent!,
        input.version,
        input.full === true,
        summaries[0],
        mine[0],
        kept.get(`${wave}/${agent}`) ?? 0,
      )
    if (!mine.length) {
      const who = agent ? ` by ${agent}` : ''
      return { text: `No artifacts in wave "${wave}"${who}.`, wave, artifacts: [] }
    }
    const text = input.full
      ? fullText(
          mine.map((a, i) => [
            a,
            summaries[i]!.version > 1 ? `${a.agent}.json (version ${summaries[i]!.version})` : `${a.agent}.json`,
          ]),
        )
      : summaries
          .map((s) =>
            [
              summaryEntry(s),
              ...(s.version > 1
                ? [
                    `  version ${s.version}: it replaced ${earlierOnes(s.version - 1)}, still readable (pass agent and version)`,
                  ]
                : []),
            ].join('\n'),
          )
          .join('\n')
    return { text, wave, artifacts: summaries }
  }

  /**
   * The artifacts whole, in order, up to `READ_FULL_MAX_BYTES` in all; the ones past it (or one
   * alone over it) are left out and named, to be read one agent at a time or opened by path.
   */
  function fullText(artifacts: [Artifact, string][]): string {
    const parts: string[] = []
    const left: string[] = []
    let bytes = 0
    for (const [a, heading] of artifacts) {
      const block = fenced(a.data, heading)
      const size = utf8Bytes(block)
      if (bytes + size > READ_FULL_MAX_BYTES) {
        left.push(
          size > READ_FULL_MAX_BYTES
            ? `${a.agent} (alone ${size} bytes: open ${display(ctx.storage.locate('artifacts', `${a.wave}/${a.agent}`))})`
            : a.agent,
        )
        continue
      }
      parts.push(block)
      bytes += size
    }
    if (left.length) {
      const named = left.length > 20 ? `${left.slice(0, 20).join(', ')} and ${left.length - 20} more` : left.join(', ')
      parts.push(
        `${left.length} artifact${left.length === 1 ? '' : 's'} left out: one full read returns at most ${formatBytes(READ_FULL_MAX_BYTES)}. Read ${left.length === 1 ? 'it' : 'them'} one at a time with agent: ${named}.`,
      )
    }
    return parts.join('\n\n')
  }

  /** One version of one agent's artifact: the current one, or one it replaced. NOT_FOUND names the versions there are. */
  async function readVersion(
    wave: string,
    agent: string,
    version: number,
    full: boolean,
    current: ArtifactSummary | undefined,
    currentArtifact: Artifact | undefined,
    earlier: number,
  ): Promise<BlackboardReadResult> {
    const latest = current ? earlier + 1 : earlier
    if (!latest) return { text: `No artifacts in wave "${wave}" by ${agent}.`, wave, artifacts: [] }
    let artifact: Artifact | undefined = version === latest ? currentArtifact : undefined
    if (!artifact && version < latest) {
      const record = await ctx.storage.get(BLACKBOARD_HISTORY, `${wave}/${agent}/${version}`)
      if (record !== undefined)
        artifact = versionRecord.parse(record, `${BLACKBOARD_HISTORY} ${wave}/${agent}/${version}`)
    }
    if (!artifact) {
      const range = latest === 1 ? 'version 1' : `versions 1 to ${latest}`
      throw new FoundryError('NOT_FOUND', `version ${version} of ${wave}/${agent} does not exist: it has ${range}`)
    }
    const summary = version === latest && current ? current : summarize(artifact, version)
    const label = `version ${version} of ${latest}`
    const text = full
      ? fullText([[artifact, `${agent}.json (${label})`]])
      : summaryEntry(summary).replace(/^(- \*\*[^*]+\*\*)/, `$1 · ${label}`)
    return { text, wave, artifacts: [summary] }
  }

  /** Every artifact of every wave, summarised (for the token report). */
  async function all(): Promise<ArtifactSummary[]> {
    const [artifacts, kept] = await Promise.all([
      ctx.storage.list('artifacts', { onProblem: ctx.onProblem }),
      keptVersions(''),
    ])
    return artifacts.map((a) => summarize(a, (kept.get(`${a.wave}/${a.agent}`) ?? 0) + 1))
  }

  return { write, read, all }
}

function summarize(a: Artifact, version: number): ArtifactSummary {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
  return {
    file: `${a.agent}.json`,
    wave: a.wave,
    agent: a.agent,
    schema: str(a.data.schema),
    producedBy: str(a.data.producedBy),
    tokens: estimateTokens(serializeArtifact(a.data)),
    summary: summaryLine(a.data),
    version,
  }
}

/** The seed's two summary lines of an artifact. */
const summaryEntry = (s: ArtifactSummary) =>
  `- **${s.file}** · schema ${s.schema ?? '(none)'} · by ${s.producedBy ?? s.agent} · ~${s.tokens} tokens\n  ${s.summary ?? '(no summary field)'}`

/** An artifact verbatim, under a `### <heading>` line. */
const fenced = (data: Record<string, unknown>, heading: string) =>
  `### ${heading}\n\`\`\`json\n${serializeArtifact(data).trimEnd()}\n\`\`\``

const earlierOnes = (n: number) => (n === 1 ? 'version 1' : `versions 1 to ${n}`)

export const blackboardPlugin = definePlugin({
  name: 'blackboard',
  needs: [contractsPlugin],
  setup: createBlackboard,
  trace: {
    write: {
      kind: 'blackboard_write',
      kindOf: (r) => (r.written ? 'blackboard_write' : 'contract_violation'),
      data: (r) =>
        r.written
          ? { path: r.path, tokens: r.tokens, ...(r.replaced && { version: r.version }) }
          : { violations: r.violations.length },
    },
    read: { kind: 'blackboard_read', data: (r) => ({ artifacts: r.artifacts.length }) },
  },
})
