import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { adrNumberOfFile, NOT_AN_ADR, parseAdr } from './adr.js'
import { instructionKind, parseRules } from './instructions.js'
import { adrFact, ruleFact, type PlannedFact } from './to-facts.js'

/** A file looked at and not turned into facts, and why. */
export interface Skipped {
  file: string
  reason: string
}

/** A file that could not be read as what it looked like, with the line. */
export interface SourceProblem {
  file: string
  line: number
  message: string
}

export interface ReadSources {
  facts: PlannedFact[]
  /** Files that gave facts. */
  files: string[]
  skipped: Skipped[]
  problems: SourceProblem[]
}

/** Folders never walked into. */
const IGNORED = new Set(['node_modules', '.git', '.foundry', 'dist', 'build', 'coverage', 'vendor'])
/** The largest file read: a source section is prose, not data. */
const MAX_BYTES = 1024 * 1024

/**
 * Every fact the files under `paths` state: instruction files by their names (`CLAUDE.md`,
 * `AGENTS.md`, `.cursor/rules/*`, `.github/copilot-instructions.md`), ADRs as numbered markdown files
 * in a folder whose path names decisions (`adr`, `decisions`, `architecture-decision-record`). A path
 * that does not exist throws an Error naming it; files are read as regular files only.
 */
export function readSources(paths: string[], cwd: string): ReadSources {
  const out: ReadSources = { facts: [], files: [], skipped: [], problems: [] }
  for (const path of paths) {
    const full = resolve(cwd, path)
    const stat = lstatSync(full, { throwIfNoEntry: false })
    if (!stat) throw new Error(`${full} does not exist: name a folder or file holding ADRs or agent instructions`)
    const folders = (file: string) => (stat.isDirectory() ? relative(dirname(full), dirname(file)).split(sep) : ['adr']) // a file named on its own may be an ADR
    for (const file of stat.isDirectory() ? walk(full) : [full])
      readOne(file, relative(cwd, file) || basename(file), folders(file), out, !stat.isDirectory())
  }
  return out
}

function walk(dir: string): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name, 'en', { numeric: true }),
  )) {
    if (entry.isDirectory() && !IGNORED.has(entry.name)) files.push(...walk(join(dir, entry.name)))
    else if (entry.isFile()) files.push(join(dir, entry.name))
  }
  return files
}

/** A folder that holds ADRs: `adr`, `adrs`, `decisions`, `architecture-decision-record`, `docs-adr`… */
const DECISION_FOLDER = /(^|[-_. ])(adrs?|decisions?)([-_. ]|$)|decision[-_ ]?records?/i

/** `folders`: from the folder named to ingest down to the file's own; one of them must name decisions for a numbered file to be an ADR. */
function readOne(file: string, shown: string, folders: string[], out: ReadSources, named: boolean): void {
  const kind = instructionKind(file)
  const adrLike =
    /\.md$/i.test(file) &&
    folders.some((f) => DECISION_FOLDER.test(f)) &&
    adrNumberOfFile(basename(file)) !== undefined &&
    !NOT_AN_ADR.test(basename(file))
  if (!kind && !adrLike) {
    if (named)
      out.skipped.push({
        file: shown,
        reason:
          'neither an ADR (a numbered .md file, in a folder named for decisions when a folder is ingested) nor an instruction file',
      })
    return
  }
  const stat = lstatSync(file)
  if (!stat.isFile()) return void out.skipped.push({ file: shown, reason: 'not a regular file' })
  if (stat.size > MAX_BYTES)
    return void out.skipped.push({ file: shown, reason: `larger than ${MAX_BYTES / 1024 / 1024} MiB` })
  const text = readFileSync(file, 'utf8')
  try {
    if (kind) {
      const rules = parseRules(text)
      if (!rules.length) return void out.skipped.push({ file: shown, reason: 'no list item states a rule' })
      out.facts.push(...rules.map((rule) => ruleFact(rule, kind, shown)))
    } else {
      const adr = parseAdr(text, basename(file))
      if (!adr) return void out.skipped.push({ file: shown, reason: 'no # heading' })
      out.facts.push(adrFact(adr, folderOf(file), shown))
    }
    out.files.push(shown)
  } catch (error) {
    const message = (error as Error).message
    const line = Number(/^line (\d+)/.exec(message)?.[1] ?? 1)
    out.problems.push({ file: shown, line, message: message.replace(/^line \d+: /, '') })
  }
}

/** The folder an ADR sits in: its set (`madr`, `moj-cloud-platform`, `adr`). */
const folderOf = (file: string) => file.split(sep).slice(-2, -1)[0] ?? 'adr'
