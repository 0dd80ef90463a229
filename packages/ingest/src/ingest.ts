import type { Fact, FactInput, Kernel } from '@foundry/kernel'

/** What ingest compares and links: a stored fact, or (in a dry run) one it would store. */
type Known = Pick<Fact, 'id' | 'title' | 'body' | 'type' | 'status'>
import { readSources, type Skipped, type SourceProblem } from './sources.js'
import { keyOfFact, type PlannedFact } from './to-facts.js'

export interface IngestOptions {
  /** Where relative paths start. Default `process.cwd()`. */
  cwd?: string
  /** Plan only: say what would be written and what it would supersede, write nothing. */
  dryRun?: boolean
  /** After each planned fact is handled. */
  onProgress?: (done: number, total: number) => void
}

/** What happened to one planned fact. */
export interface IngestStep {
  file: string
  line: number
  title: string
  /** `created` (written now), `unchanged` (the same fact is stored), `duplicate` (an identical fact under another source). */
  action: 'created' | 'unchanged' | 'duplicate'
  /** The stored fact: new, or the one already holding it. Absent in a dry run for what would be created. */
  id?: string
  /** The fact it supersedes (in a dry run, the one it would: for a fact not stored yet, the `file:line` it would come from). */
  supersedes?: string
  /** Recorded, then forgotten at once: a rejected or deprecated ADR. */
  shelved?: string
}

export interface IngestReport {
  /** Every planned fact, in the order handled. */
  steps: IngestStep[]
  /** Facts written (or, in a dry run, that would be). */
  created: number
  /** Supersede links written: the chains ADRs state, and changed sources replacing what they said before. */
  chains: number
  /** Files that gave facts. */
  files: string[]
  skipped: Skipped[]
  problems: SourceProblem[]
  dryRun: boolean
}

/**
 * Turn what the files under `paths` state into facts through the kernel's own write path (checks,
 * dedupe, the index): ADRs as decisions with the supersede chains they state, instruction files as
 * conventions and constraints. Idempotent: a source section already stored as the same fact writes
 * nothing; one that changed supersedes what it said before.
 */
export async function ingest(kernel: Kernel, paths: string[], options: IngestOptions = {}): Promise<IngestReport> {
  const sources = readSources(paths, options.cwd ?? process.cwd())
  const stored = new Map<string, Known>()
  for (const fact of await kernel.memory.list({ status: 'all' })) {
    const key = keyOfFact(fact)
    if (key !== undefined) stored.set(key, fact) // ascending ids: the newest fact of a key wins
  }
  const report: IngestReport = { steps: [], created: 0, chains: 0, files: sources.files, skipped: sources.skipped, problems: sources.problems, dryRun: options.dryRun === true }
  const ordered = inWriteOrder(linked(sources.facts))
  for (const [i, planned] of ordered.entries()) {
    try {
      report.steps.push(await handle(kernel, planned, stored, report, options.dryRun === true))
    } catch (error) {
      // One section the kernel refuses (a title it finds empty, say) is named; the rest goes on.
      report.problems.push({ file: planned.file, line: planned.line, message: (error as Error).message })
    }
    options.onProgress?.(i + 1, ordered.length)
  }
  return report
}

async function handle(kernel: Kernel, planned: PlannedFact, stored: Map<string, Known>, report: IngestReport, dryRun: boolean): Promise<IngestStep> {
  const base = { file: planned.file, line: planned.line, title: planned.input.title }
  const before = stored.get(planned.key)
  if (before && same(before, planned.input)) return { ...base, action: 'unchanged', id: before.id }
  // What it replaces: what the same source said before, else what the source says it supersedes.
  const previous = before?.status === 'active' ? before : planned.replaces.map((key) => stored.get(key)).find((f) => f?.status === 'active')
  const input: FactInput = previous ? { ...planned.input, supersedes: previous.id } : planned.input
  if (dryRun) {
    report.created++
    if (previous) report.chains++
    // What a later section would supersede: this one, as it would be stored (named by its source).
    stored.set(planned.key, { ...planned.input, id: `${planned.file}:${planned.line}`, status: planned.shelved ? 'forgotten' : 'active' })
    return { ...base, action: 'created', ...(previous && { supersedes: previous.id }), ...(planned.shelved && { shelved: planned.shelved }) }
  }
  const written = await kernel.memory.write(input)
  if (written.action === 'duplicate') return { ...base, action: 'duplicate', id: written.id }
  report.created++
  if (written.supersedes) report.chains++
  if (planned.shelved) await kernel.memory.forget(written.id, planned.shelved)
  stored.set(planned.key, await kernel.memory.get(written.id))
  const replaced = written.supersedes === undefined ? undefined : await kernel.memory.get(written.supersedes)
  const replacedKey = replaced && keyOfFact(replaced)
  if (replacedKey !== undefined) stored.set(replacedKey, replaced!)
  return { ...base, action: 'created', id: written.id, ...(written.supersedes && { supersedes: written.supersedes }), ...(planned.shelved && { shelved: planned.shelved }) }
}

/** The stored fact says what the source says now (its status aside: a superseded one said it too). */
function same(fact: Known, input: FactInput): boolean {
  return fact.title === input.title && fact.body === input.body && fact.type === input.type
}

/** "Superseded by ADR-9" in ADR 5 is ADR 9 replacing ADR 5, whether or not ADR 9 says so too. */
function linked(facts: PlannedFact[]): PlannedFact[] {
  const byKey = new Map(facts.map((f) => [f.key, { ...f, replaces: [...f.replaces] }]))
  for (const fact of facts)
    for (const key of fact.replacedBy) {
      const newer = byKey.get(key)
      if (newer && !newer.replaces.includes(fact.key)) newer.replaces.push(fact.key)
    }
  return facts.map((f) => byKey.get(f.key)!)
}

/** ADRs before what supersedes them (a topological order, file order otherwise); rules as found. */
function inWriteOrder(facts: PlannedFact[]): PlannedFact[] {
  const byKey = new Map(facts.map((f) => [f.key, f]))
  const done = new Set<string>()
  const out: PlannedFact[] = []
  const visit = (fact: PlannedFact, path: Set<string>) => {
    if (done.has(fact.key) || path.has(fact.key)) return // a cycle in what ADRs claim: file order breaks it
    path.add(fact.key)
    for (const key of fact.replaces) {
      const older = byKey.get(key)
      if (older) visit(older, path)
    }
    done.add(fact.key)
    out.push(fact)
  }
  for (const fact of facts) visit(fact, new Set())
  return out
}
