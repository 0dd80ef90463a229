import type { IncomingMessage, ServerResponse } from 'node:http'
import { estimateTokens, FACT_ID_PATTERN, FoundryError, stateOf } from '@foundry/kernel'
import { doctorProject, type Project } from '@foundry/project'
import type { ConsolePrincipal, ConsoleRole } from './auth.js'
import { editFact, factPage, findFacts, forgetFact } from './facts.js'
import { readJson } from './http.js'
import { acceptProposal, editProposal, proposalId, rejectProposal, reviewQueue } from './review.js'
import { openEventStream, type ChangeFeed } from './live.js'
import { actionsOf, dispatchRequest, type RunActions } from './run-actions.js'
import { getRun, journalLog, listRuns, readJournal, RUNS, runId } from './runs.js'
import type {
  CancelAnswer,
  HealthAnswer,
  IndexAnswer,
  RunStartedAnswer,
  SessionAnswer,
  TokensAnswer,
  WorkflowsAnswer,
} from './wire.js'

/** What a route is called with. */
export interface RouteContext {
  project: Project
  feed: ChangeFeed
  principal: ConsolePrincipal
  /** The path's captured parts, decoded. */
  params: string[]
  query: URLSearchParams
  req: IncomingMessage
  res: ServerResponse
  /** Dispatch, cancel and re-run, when the console was given them. */
  runs?: RunActions
}

/**
 * One API route, declared once with everything it is: method, path under `api/`, the role it
 * needs, and its call. A call's value is sent as JSON; a `stream` route answers `res` itself.
 */
export interface Route {
  method: 'GET' | 'POST'
  path: RegExp
  role: ConsoleRole
  stream?: boolean
  call(ctx: RouteContext): Promise<unknown>
}

const FACT_ID = new RegExp(FACT_ID_PATTERN)
const factId = (text: string | undefined) => {
  if (!text || !FACT_ID.test(text))
    throw new FoundryError(
      'INVALID_INPUT',
      `fact id: write it as fact-0012, got ${JSON.stringify((text ?? '').slice(0, 40))}`,
    )
  return text
}
const param = (ctx: RouteContext, i = 0) => ctx.params[i] ?? ''

export const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: /^session$/,
    role: 'read',
    call: async (ctx): Promise<SessionAnswer> => ({
      name: ctx.principal.name,
      roles: ctx.principal.roles,
      runActions: ctx.runs !== undefined,
    }),
  },
  { method: 'GET', path: /^facts$/, role: 'read', call: (ctx) => findFacts(ctx.project, ctx.query) },
  { method: 'GET', path: /^facts\/([^/]+)$/, role: 'read', call: (ctx) => factPage(ctx.project, factId(param(ctx))) },
  {
    method: 'POST',
    path: /^facts\/([^/]+)\/forget$/,
    role: 'write',
    call: async (ctx) => forgetFact(ctx.project, factId(param(ctx)), await readJson(ctx.req)),
  },
  {
    method: 'POST',
    path: /^facts\/([^/]+)\/edit$/,
    role: 'write',
    call: async (ctx) => editFact(ctx.project, factId(param(ctx)), await readJson(ctx.req), ctx.principal.name),
  },
  { method: 'GET', path: /^review$/, role: 'read', call: (ctx) => reviewQueue(ctx.project) },
  {
    method: 'POST',
    path: /^review\/([^/]+)\/accept$/,
    role: 'write',
    call: (ctx) => acceptProposal(ctx.project, proposalId(param(ctx))),
  },
  {
    method: 'POST',
    path: /^review\/([^/]+)\/reject$/,
    role: 'write',
    call: async (ctx) => rejectProposal(ctx.project, proposalId(param(ctx)), await readJson(ctx.req)),
  },
  {
    method: 'POST',
    path: /^review\/([^/]+)\/edit$/,
    role: 'write',
    call: async (ctx) => editProposal(ctx.project, proposalId(param(ctx)), await readJson(ctx.req)),
  },
  {
    method: 'GET',
    path: /^index$/,
    role: 'read',
    call: async ({ project }): Promise<IndexAnswer> => {
      const text = await project.kernel.memory.readIndex()
      return { text, tokens: estimateTokens(text), budget: project.config.indexTokenBudget }
    },
  },
  {
    method: 'GET',
    path: /^runbooks$/,
    role: 'read',
    call: async ({ project }) => (await project.kernel.runbooks.list()).runbooks,
  },
  {
    method: 'GET',
    path: /^runbooks\/([^/]+)$/,
    role: 'read',
    call: async (ctx) => (await ctx.project.kernel.runbooks.get({ slug: param(ctx) })).runbook,
  },
  { method: 'GET', path: /^contracts$/, role: 'read', call: ({ project }) => project.kernel.contracts.list() },
  {
    method: 'GET',
    path: /^contracts\/([^/]+)$/,
    role: 'read',
    call: async (ctx) => ({ id: param(ctx), schema: await ctx.project.kernel.contracts.get(param(ctx)) }),
  },
  { method: 'GET', path: /^blackboard$/, role: 'read', call: ({ project }) => project.kernel.blackboard.all() },
  {
    method: 'GET',
    path: /^blackboard\/([^/]+)\/([^/]+)$/,
    role: 'read',
    call: async (ctx) => ({
      text: (await ctx.project.kernel.blackboard.read({ wave: param(ctx), agent: param(ctx, 1), full: true })).text,
    }),
  },
  {
    method: 'GET',
    path: /^tokens$/,
    role: 'read',
    call: async ({ project }): Promise<TokensAnswer> => {
      const report = await project.kernel.tokens.report()
      return { figures: report.figures, accounting: report.accounting }
    },
  },
  { method: 'GET', path: /^health$/, role: 'read', call: ({ project }) => health(project) },
  { method: 'GET', path: /^doctor$/, role: 'read', call: ({ project }) => doctorProject({ root: project.root }) },
  { method: 'GET', path: /^runs$/, role: 'read', call: ({ project }) => listRuns(project.storage) },
  {
    method: 'GET',
    path: /^workflows$/,
    role: 'read',
    call: async (ctx): Promise<WorkflowsAnswer> => ({ workflows: await actionsOf(ctx.runs).workflows() }),
  },
  {
    method: 'POST',
    path: /^runs$/,
    role: 'run',
    call: async (ctx): Promise<RunStartedAnswer> => {
      const actions = actionsOf(ctx.runs)
      const { name, input, idempotencyKey } = dispatchRequest(await readJson(ctx.req))
      return actions.dispatch(name, input, idempotencyKey === undefined ? {} : { idempotencyKey })
    },
  },
  {
    method: 'POST',
    path: /^runs\/([^/]+)\/cancel$/,
    role: 'run',
    call: (ctx): Promise<CancelAnswer> => actionsOf(ctx.runs).cancel(runId(param(ctx))),
  },
  {
    method: 'POST',
    path: /^runs\/([^/]+)\/rerun$/,
    role: 'run',
    call: (ctx): Promise<RunStartedAnswer> => actionsOf(ctx.runs).rerun(runId(param(ctx))),
  },
  {
    method: 'GET',
    path: /^runs\/([^/]+)$/,
    role: 'read',
    call: (ctx) => getRun(ctx.project.storage, runId(param(ctx))),
  },
  {
    method: 'GET',
    path: /^runs\/([^/]+)\/journal$/,
    role: 'read',
    stream: true,
    call: (ctx) => streamJournal(ctx, runId(param(ctx))),
  },
  { method: 'GET', path: /^live$/, role: 'read', stream: true, call: streamChanges },
]

/** Storage kind, fact counts by state, and how many of everything else there is. */
async function health(project: Project): Promise<HealthAnswer> {
  const { kernel, storage } = project
  const day = new Date().toISOString().slice(0, 10)
  const [facts, runbooks, contracts, artifacts, runs] = await Promise.all([
    kernel.memory.list({ status: 'all' }),
    kernel.runbooks.list(),
    kernel.contracts.list(),
    kernel.blackboard.all(),
    storage.keys(RUNS),
  ])
  const counts: HealthAnswer['facts'] = { active: 0, expired: 0, superseded: 0, forgotten: 0 }
  for (const fact of facts) counts[stateOf(fact, day)]++
  return {
    storage: project.adapters.storage.kind,
    retrieval: project.adapters.retrieval.kind,
    flags: storage.flags,
    live: storage.onChange ? 'change notifications' : 'polling',
    facts: counts,
    runbooks: runbooks.runbooks.length,
    contracts: contracts.length,
    artifacts: artifacts.length,
    runs: runs.length,
  }
}

/** `facts` events (facts or proposals changed) and `runs` events, each time those collections change, until the page goes away. */
async function streamChanges(ctx: RouteContext): Promise<void> {
  const stream = openEventStream(ctx.res)
  const off = ctx.feed.subscribe((change) => {
    if (
      'collection' in change &&
      (change.collection === 'facts' || change.collection === 'memory.proposals' || change.collection === RUNS)
    )
      stream.send(change.collection === RUNS ? 'runs' : 'facts', {})
  })
  await stream.closed
  off()
}

/**
 * A run's journal: every entry so far, then each new one as it is appended (by this process or
 * another), as `entries` events; `run` events carry the run's record when it changes.
 */
async function streamJournal(ctx: RouteContext, id: string): Promise<void> {
  const { storage } = ctx.project
  await getRun(storage, id)
  const stream = openEventStream(ctx.res)
  let cursor = 0
  let reading: Promise<void> = Promise.resolve()
  const catchUp = () =>
    (reading = reading
      .then(async () => {
        for (;;) {
          const page = await readJournal(storage, id, cursor)
          if (!page.records.length) return
          cursor = page.cursor
          stream.send('entries', page.records)
        }
      })
      .catch(() => {}))
  const off = ctx.feed.subscribe(
    (change) => {
      if ('log' in change) void catchUp()
      else if (change.collection === RUNS)
        void getRun(storage, id).then(
          (run) => stream.send('run', run),
          () => {},
        )
    },
    [journalLog(id)],
  )
  await catchUp()
  await stream.closed
  off()
}
