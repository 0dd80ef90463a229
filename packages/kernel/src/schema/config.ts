import type { Static } from 'typebox'
import { Type } from './typebox.js'
import { FoundryError } from '../errors.js'
import { lazyObject } from './lazy.js'
import { isEmptyObject, validator } from './validate.js'
import { CONFIDENCES, FACT_TYPES, FactTypeSchema, type Confidence, type FactType } from './fact.js'

export const ENFORCEMENT_LEVELS = ['off', 'warn', 'gate'] as const
export type Enforcement = (typeof ENFORCEMENT_LEVELS)[number]

/**
 * The default `memoryRetrieval.minRelevance`: `memory_search` leaves out hits under it unless they
 * hold every word of the query. Hits that match only through a typo or a prefix score 0.2 to 0.45
 * (`kubernetes helm chart` → two payment facts at 0.31 and 0.33, `chart` read as "charged"); a
 * distinctive word found once scores about 1. Measured by `pnpm bench --only floor`: at 0.5 SciFact
 * nDCG@10 through memory_search stays 0.690 (MiniSearch) and 0.698 (FTS5), and on the Larkspur
 * memory (219 facts) all 612 hits of 410 tag queries on facts carrying the tag stay (610 with FTS5)
 * while 18 of the 105 hits of 22 off-topic queries go (tokens a question 447 → 384).
 */
export const MIN_RELEVANCE = 0.5

/**
 * The defaults that keep a `memory_search` answer lean (issue 17): hits under half the top hit's
 * relevance are left out, and only the best hit is printed whole, the others one line each (their
 * ids fetch them whole). On 50 known-answer questions over 10k facts (`pnpm bench --only mcp`) the
 * answer stays listed for all 50 at a fraction of eight whole blocks' tokens.
 */
export const MIN_RELEVANCE_RATIO = 0.5
export const WHOLE_FACTS = 1

/**
 * The kernel's keys of `.foundry/config.json`: every key optional, unknown keys refused. The file's
 * other keys (`storage`, `retrieval`: which adapters, and their options) belong to the composition
 * root (`@foundry/project`), which validates them with each adapter's own schema and passes the
 * kernel only these.
 */
export const ConfigFileSchema = lazyObject(() =>
  Type.Object(
    {
      $schema: Type.Optional(Type.String()),
      profile: Type.Optional(
        Type.String({ description: 'A preset applied under the explicit keys: default | startup-mvp | strict' }),
      ),
      indexTokenBudget: Type.Optional(
        Type.Integer({ minimum: 100, maximum: 200_000, description: 'Token cap of memory/INDEX.md. Default 4000' }),
      ),
      handoffSummaryTokenBudget: Type.Optional(
        Type.Integer({
          minimum: 10,
          maximum: 100_000,
          description: 'Tokens a subagent may return; the firewall blocks over 3x. Default 300',
        }),
      ),
      memoryRetrieval: Type.Optional(
        Type.Object(
          {
            maxFacts: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 25,
                description: 'memory_search returns at most this many facts when the call names no limit',
              }),
            ),
            minRelevance: Type.Optional(
              Type.Number({
                minimum: 0,
                description: `memory_search leaves out hits of lower relevance that miss a query word, and says how many; 0 turns it off. Default ${MIN_RELEVANCE}`,
              }),
            ),
            minRelevanceRatio: Type.Optional(
              Type.Number({
                minimum: 0,
                maximum: 1,
                description: `memory_search also leaves out such hits below this share of the top hit's relevance. Default ${MIN_RELEVANCE_RATIO}; 0 turns it off`,
              }),
            ),
            wholeFacts: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 25,
                description: `memory_search prints this many of the best hits whole; the others, one line each (id, type, title). Default ${WHOLE_FACTS}`,
              }),
            ),
          },
          { additionalProperties: false },
        ),
      ),
      promptContext: Type.Optional(
        Type.Object(
          {
            maxFacts: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: 25,
                description:
                  'The prompt-context hook adds at most this many facts to a prompt; 0 adds none (runbooks still come)',
              }),
            ),
            minScore: Type.Optional(
              Type.Number({
                minimum: 0,
                description:
                  'The relevance a fact needs to be added to a prompt (about one per distinctive prompt word it holds)',
              }),
            ),
            minPromptLength: Type.Optional(
              Type.Integer({ minimum: 0, description: 'Prompts shorter than this many characters get no context' }),
            ),
          },
          { additionalProperties: false },
        ),
      ),
      enforcement: Type.Optional(
        Type.Enum([...ENFORCEMENT_LEVELS], {
          description:
            'off turns the context firewall off (subagent returns pass whatever their size); warn and gate block a return over 3x the handoff budget once',
        }),
      ),
      capture: Type.Optional(
        Type.Object(
          {
            enabled: Type.Optional(
              Type.Boolean({
                description:
                  'At PreCompact and SessionEnd, a detached memory.distill run proposes the facts the session established for review. Default false',
              }),
            ),
            provider: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 40,
                description: 'The Marbles harness the distill run uses. Default claude-code',
              }),
            ),
            model: Type.Optional(
              Type.String({ minLength: 1, maxLength: 100, description: 'Its model: the cheap tier. Default haiku' }),
            ),
            maxChars: Type.Optional(
              Type.Integer({
                minimum: 1000,
                maximum: 1_000_000,
                description: 'The most transcript characters one run reads (the newest). Default 60000',
              }),
            ),
          },
          { additionalProperties: false },
        ),
      ),
      review: Type.Optional(
        Type.Object(
          {
            autoAccept: Type.Optional(
              Type.Object(
                {
                  types: Type.Array(FactTypeSchema, {
                    uniqueItems: true,
                    description: `Proposed facts of these types skip the review queue; [] for none (${FACT_TYPES.join(' | ')})`,
                  }),
                  minConfidence: Type.Optional(
                    Type.Enum([...CONFIDENCES], { description: 'and of at least this confidence. Default high' }),
                  ),
                },
                {
                  additionalProperties: false,
                  description:
                    'Proposals written at once, through the normal write path, rather than queued. Off by default',
                },
              ),
            ),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
)
export type ConfigFile = Static<typeof ConfigFileSchema>

/** The resolved configuration every service reads: defaults, then the profile, then the file. */
export interface Config {
  profile: string
  indexTokenBudget: number
  handoffSummaryTokenBudget: number
  memoryRetrieval: { maxFacts: number; minRelevance: number; minRelevanceRatio: number; wholeFacts: number }
  promptContext: { maxFacts: number; minScore: number; minPromptLength: number }
  enforcement: Enforcement
  /** Capture from sessions: off unless `enabled`. */
  capture: { enabled: boolean; provider: string; model: string; maxChars: number }
  /** Which proposals skip the review queue: none when `types` is empty (the default). */
  review: { autoAccept: { types: FactType[]; minConfidence: Confidence } }
}

export const DEFAULT_CONFIG: Config = {
  profile: 'default',
  indexTokenBudget: 4000,
  handoffSummaryTokenBudget: 300,
  memoryRetrieval: {
    maxFacts: 8,
    minRelevance: MIN_RELEVANCE,
    minRelevanceRatio: MIN_RELEVANCE_RATIO,
    wholeFacts: WHOLE_FACTS,
  },
  promptContext: { maxFacts: 5, minScore: 3, minPromptLength: 12 },
  enforcement: 'gate',
  capture: { enabled: false, provider: 'claude-code', model: 'haiku', maxChars: 60_000 },
  review: { autoAccept: { types: [], minConfidence: 'high' } },
}

/** Presets a project picks with `profile`; explicit keys in the file still win. */
export const PROFILES: Record<string, ConfigFile> = {
  default: {},
  // Lowers enforcement for speed, keeps the context firewall (it is tuned by the handoff budget, not enforcement).
  'startup-mvp': { enforcement: 'warn' },
  strict: { enforcement: 'gate', handoffSummaryTokenBudget: 200 },
}

const configFile = validator(ConfigFileSchema)

/** The configurations `resolveConfig` returned: resolving one again (`createKernel` given a project's) returns it as it is. */
const resolved = new WeakSet<object>()

/** Resolve a parsed `config.json` (or `undefined` when the file is absent). Throws INVALID_INPUT naming the key. */
export function resolveConfig(raw: unknown, where = '.foundry/config.json'): Config {
  // Already resolved (and so checked): walking the whole schema over it again costs a new process ~2 ms.
  if (typeof raw === 'object' && raw !== null && resolved.has(raw)) return raw as Config
  // No kernel key (most projects): nothing to check, and compiling the schema's check costs ~40 ms of a new process.
  const file = raw === undefined || isEmptyObject(raw) ? {} : configFile.parse(raw, where)
  const profileName = file.profile ?? 'default'
  const profile = PROFILES[profileName]
  if (!profile)
    throw new FoundryError(
      'INVALID_INPUT',
      `Invalid ${where}: profile must be one of ${Object.keys(PROFILES).join(' | ')} (got "${profileName}")`,
    )
  const config = merge(merge(DEFAULT_CONFIG, profile), file, profileName)
  resolved.add(config)
  return config
}

/**
 * Resolve the text of a `config.json` (`undefined` when the file does not exist): not JSON, or
 * breaking the schema, throws INVALID_INPUT naming the file and the key.
 */
export function parseConfig(text: string | undefined, file = '.foundry/config.json'): Config {
  if (text === undefined) return resolveConfig(undefined, file)
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw new FoundryError('INVALID_INPUT', `Invalid ${file}: not JSON (${(error as Error).message})`, { cause: error })
  }
  return resolveConfig(raw, file)
}

function merge(base: Config, over: ConfigFile, profile = base.profile): Config {
  return {
    profile,
    indexTokenBudget: over.indexTokenBudget ?? base.indexTokenBudget,
    handoffSummaryTokenBudget: over.handoffSummaryTokenBudget ?? base.handoffSummaryTokenBudget,
    memoryRetrieval: { ...base.memoryRetrieval, ...defined(over.memoryRetrieval) },
    promptContext: { ...base.promptContext, ...defined(over.promptContext) },
    enforcement: over.enforcement ?? base.enforcement,
    capture: { ...base.capture, ...defined(over.capture) },
    review: over.review?.autoAccept
      ? {
          autoAccept: {
            types: [...over.review.autoAccept.types],
            minConfidence: over.review.autoAccept.minConfidence ?? 'high',
          },
        }
      : base.review,
  }
}

function defined<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {}
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
