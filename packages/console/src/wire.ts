// What the console's API answers, declared once for the server that sends it and the page that
// reads it (the front end imports these as types only).
import type { Fact, Kernel, Proposal, Runbook, stateOf } from '@foundry/kernel'
import type { DoctorFinding, StorageFlags } from '@foundry/kernel/adapter'

// The kernel's results as its services return them.
type FactState = ReturnType<typeof stateOf>
type ContractInfo = Awaited<ReturnType<Kernel['contracts']['list']>>[number]
type ArtifactSummary = Awaited<ReturnType<Kernel['blackboard']['all']>>[number]
type TokenFigures = Awaited<ReturnType<Kernel['tokens']['report']>>['figures']

/** `GET api/session`: who the request is from. */
export interface SessionAnswer {
  name: string
  roles: readonly string[]
  /** Whether this console dispatches, cancels and re-runs runs (`runs` was given), for a run token. */
  runActions: boolean
}

/** A fact as a list or a search shows it: no body beyond a short excerpt. */
export interface FactRow {
  id: string
  title: string
  type: string
  scope: string
  state: FactState
  created: string
  author?: string
  excerpt: string
  /** On a search hit: `SearchHit.relevance`, rounded. */
  relevance?: number
}

/** `GET api/facts?q&type&status`: a search (with `q`, active facts, best first) or a listing (newest first). */
export interface FactsAnswer {
  mode: 'search' | 'list'
  facts: FactRow[]
  /** A listing: how many facts the filter holds (`facts` has the newest of them, at most 100). */
  total?: number
  dropped?: number
  missing?: string[]
}

/** `GET api/facts/<id>`: the fact whole, what it is now, and its supersede chain oldest first. */
export interface FactAnswer {
  fact: Fact
  state: FactState
  chain: FactRow[]
}

/** `POST api/facts/<id>/edit`: the new fact and the one it superseded. */
export interface EditAnswer {
  id: string
  action: 'created' | 'duplicate'
  supersedes?: string
  text: string
}

/** `GET api/review`: the proposed facts waiting for review, oldest first. */
export interface ReviewAnswer {
  proposals: Proposal[]
}

/** `POST api/review/<id>/accept`, `…/reject`, `…/edit`: what was done; accept adds the fact written (or the identical one). */
export interface ReviewDecisionAnswer {
  proposal: string
  id?: string
  action?: 'created' | 'duplicate'
  supersedes?: string
  text: string
}

/** `POST api/facts/<id>/forget`. */
export interface ForgetAnswer {
  id: string
  reason: string
  forgotten: string
  text: string
}

/** `GET api/index`: the index text an agent receives, its estimated tokens and the budget. */
export interface IndexAnswer {
  text: string
  tokens: number
  budget: number
}

export type RunbooksAnswer = Array<{ slug: string; title: string; trigger?: string }>
export type RunbookAnswer = Runbook
export type ContractsAnswer = ContractInfo[]
export interface ContractAnswer {
  id: string
  schema: object
}
export type BlackboardAnswer = ArtifactSummary[]
export interface ArtifactAnswer {
  text: string
}

/** `GET api/tokens`: the token report's figures and its accounting table. */
export interface TokensAnswer {
  figures: TokenFigures
  accounting: string
}

/** `GET api/health`. */
export interface HealthAnswer {
  storage: string
  retrieval: string
  flags: StorageFlags
  live: 'change notifications' | 'polling'
  facts: Record<FactState, number>
  runbooks: number
  contracts: number
  artifacts: number
  runs: number
}

/** `GET api/doctor`: the doctor's findings, reported only. */
export interface DoctorAnswer {
  healthy: boolean
  findings: DoctorFinding[]
}

/** A Marbles run as the console lists it (`GET api/runs`, `GET api/runs/<id>`, the journal stream's `run` events). */
export interface RunSummary {
  id: string
  name: string
  status: string
  createdAt?: number
  updatedAt?: number
  reason?: string
  error?: string
}

/** A workflow (or step) the console can dispatch: `GET api/workflows`. */
export interface WorkflowInfo {
  name: string
  description?: string
  /** Its input as a JSON Schema (an object schema when the workflow declares none). */
  inputSchema: unknown
}

/** `GET api/workflows`. */
export interface WorkflowsAnswer {
  workflows: WorkflowInfo[]
}

/** A run just made (`POST api/runs`, `POST api/runs/<id>/rerun`): it is queued and goes on in the background. */
export interface RunStartedAnswer {
  runId: string
  name: string
  status: string
  /** The run this one re-runs. */
  rerunOf?: string
}

/** `POST api/runs/<id>/cancel`: the run as it stands once cancellation was requested. */
export interface CancelAnswer {
  runId: string
  status: string
}
