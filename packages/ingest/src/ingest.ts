import { WRITE_BATCH_MAX, type Fact, type FactInput, type Kernel } from '@foundry/kernel'

type WriteResult = Awaited<ReturnType<Kernel['memory']['write']>>

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
  const report: IngestReport = {
    steps: [],
    created: 0,
    chains: 0,
    files: sources.files,
    skipped: sources.skipped,
    problems: sources.problems,
    dryRun: options.dryRun === true,
  }
  const ordered = inWriteOrder(linked(sources.facts))
  // Each planned fact's step, in the order handled; a fact the kernel refused has none (its problem is reported).
  const steps: Array<IngestStep | undefined> = []
  let done = 0
  const handled = () => options.onProgress?.(++done, ordered.length)
  /** Facts to write together, each after what it supersedes is stored (its id is then known). */
  let pending: Pending[] = []
  const flush = async () => {
    if (pending.length) await writeBatch(kernel, pending, stored, report, steps, handled)
    pending = []
  }
  for (const [i, planned] of ordered.entries()) {
    if (pending.some((p) => p.planned.key === planned.key || planned.replaces.includes(p.planned.key))) await flush()
    const base = { file: planned.file, line: planned.line, title: planned.input.title }
    const before = stored.get(planned.key)
    if (before && same(before, planned.input)) {
      steps[i] = { ...base, action: 'unchanged', id: before.id }
      handled()
      continue
    }
    // What it replaces: what the same source said before, else what the source says it supersedes.
    const previous =
      before?.status === 'active'
        ? before
        : planned.replaces.map((key) => stored.get(key)).find((f) => f?.status === 'active')
    const input: FactInput = previous ? { ...planned.input, supersedes: previous.id } : planned.input
    if (options.dryRun) {
      steps[i] = dryRun(planned, previous, stored, report)
      handled()
      continue
    }
    pending.push({ at: i, planned, input })
    if (pending.length === WRITE_BATCH_MAX) await flush()
  }
  await flush()
  report.steps = steps.filter((step): step is IngestStep => step !== undefined)
  return report
}

/** A planned fact waiting in a batch: its place in the order handled, and the input it is written with. */
interface Pending {
  at: number
  planned: PlannedFact
  input: FactInput
}

/** In a dry run: what writing `planned` would do, remembered so that a later section supersedes it. */
function dryRun(
  planned: PlannedFact,
  previous: Known | undefined,
  stored: Map<string, Known>,
  report: IngestReport,
): IngestStep {
  report.created++
  if (previous) report.chains++
  // What a later section would supersede: this one, as it would be stored (named by its source).
  stored.set(planned.key, {
    ...planned.input,
    id: `${planned.file}:${planned.line}`,
    status: planned.shelved ? 'forgotten' : 'active',
  })
  const base = { file: planned.file, line: planned.line, title: planned.input.title }
  return {
    ...base,
    action: 'created',
    ...(previous && { supersedes: previous.id }),
    ...(planned.shelved && { shelved: planned.shelved }),
  }
}

/**
 * Write the batch through the kernel's batch path (one section, one index rebuild). When the kernel
 * refuses the batch, each fact is written alone, so the one refused is named and the rest go on.
 */
async function writeBatch(
  kernel: Kernel,
  batch: Pending[],
  stored: Map<string, Known>,
  report: IngestReport,
  steps: Array<IngestStep | undefined>,
  handled: () => void,
): Promise<void> {
  let results: WriteResult[] | undefined
  try {
    results = (await kernel.memory.writeMany(batch.map((p) => p.input))).results
  } catch {
    results = undefined
  }
  for (const [i, { at, planned, input }] of batch.entries()) {
    try {
      steps[at] = await recorded(kernel, planned, results?.[i] ?? (await kernel.memory.write(input)), stored, report)
    } catch (error) {
      // One section the kernel refuses (a title it finds empty, say) is named; the rest goes on.
      report.problems.push({ file: planned.file, line: planned.line, message: (error as Error).message })
    }
    handled()
  }
}

/** After `planned` was written: its step, the fact shelved when the source says so, and what it and its predecessor are now. */
async function recorded(
  kernel: Kernel,
  planned: PlannedFact,
  written: WriteResult,
  stored: Map<string, Known>,
  report: IngestReport,
): Promise<IngestStep> {
  const base = { file: planned.file, line: planned.line, title: planned.input.title }
  if (written.action === 'duplicate') return { ...base, action: 'duplicate', id: written.id }
  report.created++
  if (written.supersedes) report.chains++
  if (planned.shelved) await kernel.memory.forget(written.id, planned.shelved)
  stored.set(planned.key, await kernel.memory.get(written.id))
  const replaced = written.supersedes === undefined ? undefined : await kernel.memory.get(written.supersedes)
  const replacedKey = replaced && keyOfFact(replaced)
  if (replacedKey !== undefined) stored.set(replacedKey, replaced!)
  return {
    ...base,
    action: 'created',
    id: written.id,
    ...(written.supersedes && { supersedes: written.supersedes }),
    ...(planned.shelved && { shelved: planned.shelved }),
  }
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
