import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { basename, join } from 'node:path'
import { isValidKey, type DoctorFinding } from '@foundry/kernel/adapter'
import { isAbandonedTemp, isTempName } from './atomic.js'
import { codecOf, isRecordOf } from './codecs.js'
import { YamlNotLoaded } from './front-matter.js'
import { readTextSync } from './io.js'
import { fileIdentity } from './record-cache.js'
import { createLayout, flatKey, type Layout } from './layout.js'
import { inspectLock, removeAbandonedLock } from './lock.js'

/** Where the data folder is: as the `fs` storage options say (`folder`, `cache`). */
export interface DoctorFolderOptions {
  folder?: string
  cache?: string
}

/** The folder of fact files that could not be read, moved aside by `repairFolder` (never deleted). */
export const QUARANTINE = 'quarantine'

/** `foundry doctor` on the folder layout: what is wrong, changing nothing. Call after `loadYaml()` (front-matter.ts). */
export function inspectFolder(root: string, options: DoctorFolderOptions = {}): DoctorFinding[] {
  return doctorFolder(root, options, false)
}

/**
 * `foundry doctor --fix` on the folder layout: remove a lock whose holder is gone, temporary files
 * of killed writers, a record cache or retriever snapshot that does not match the files (both are
 * rebuilt), and move unreadable fact files to `<data folder>/quarantine/` beside the reason. No
 * record is deleted. Run while no writer runs is best; a live lock holder is left alone. Call after `loadYaml()`.
 */
export function repairFolder(root: string, options: DoctorFolderOptions = {}): DoctorFinding[] {
  return doctorFolder(root, options, true)
}

function doctorFolder(root: string, options: DoctorFolderOptions, fix: boolean): DoctorFinding[] {
  const layout = createLayout(root, options.folder, options.cache)
  const findings: DoctorFinding[] = []
  /** A problem, repaired by `repair` with `fix`: reported as fixed, or as unfixable with the error. */
  const found = (check: string, path: string, problem: string, done: string, repair: () => void) => {
    if (!fix) return void findings.push({ status: 'problem', check, path, message: problem })
    try {
      repair()
      findings.push({ status: 'fixed', check, path, message: `${problem}: ${done}` })
    } catch (error) {
      findings.push({
        status: 'unfixable',
        check,
        path,
        message: `${problem}: could not repair (${(error as Error).message})`,
      })
    }
  }
  checkLock(layout, findings, found)
  checkTemps(layout, found)
  checkRecordCaches(layout, found)
  checkSnapshot(layout, found)
  checkFacts(layout, findings, found)
  return findings
}

type Found = (check: string, path: string, problem: string, done: string, repair: () => void) => void

/** The lock's holder must run: a lock whose holder is gone is removed; a live holder's is left alone. */
function checkLock(layout: Layout, findings: DoctorFinding[], found: Found): void {
  const lock = inspectLock(layout.lock)
  if (!lock) return
  const who = lock.holder ? `pid ${lock.holder.pid} on ${lock.holder.host}` : 'no owner file'
  if (lock.alive) {
    findings.push({
      status: 'note',
      check: 'lock',
      path: layout.lock,
      message: `write lock held by ${who}, which is running: left alone`,
    })
    return
  }
  // Without an owner file a holder may be between mkdir and writing it: only an old one is abandoned.
  if (!lock.holder && lock.ageMs < 10_000) return
  found('lock', layout.lock, `stale write lock (${who}, holder gone)`, 'removed', () =>
    removeAbandonedLock(layout.lock),
  )
}

/** Temporary files whose writer is gone, in every folder writers write to. */
function checkTemps(layout: Layout, found: Found): void {
  const roots = [
    join(layout.base, 'memory'),
    layout.folder('runbooks'),
    layout.folder('contracts'),
    layout.folder('artifacts'),
    layout.data,
    layout.cache,
  ]
  const seen = new Set<string>()
  const walk = (dir: string) => {
    if (seen.has(dir)) return
    seen.add(dir)
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return // missing, or not a folder
    }
    for (const entry of entries) {
      if (entry.isDirectory())
        walk(join(dir, entry.name)) // links are not followed
      else if (isTempName(entry.name) && isAbandonedTemp(dir, entry.name)) {
        const path = join(dir, entry.name)
        found('temp', path, `temporary file left by a killed writer`, 'removed', () => unlinkSync(path))
      }
    }
  }
  for (const dir of roots) walk(dir)
}

/** `cache/<collection>.records.json`: its entries for files as they are now must be valid records of their keys. */
function checkRecordCaches(layout: Layout, found: Found): void {
  for (const collection of ['facts', 'runbooks'] as const) {
    const path = layout.records(collection)
    if (!lstatSync(path, { throwIfNoEntry: false })) continue
    const why = recordCacheProblem(layout, collection, path)
    if (why)
      found(
        'cache',
        path,
        `record cache does not match the files (${why})`,
        'discarded (rebuilt at the next listing)',
        () => unlinkSync(path),
      )
  }
}

function recordCacheProblem(layout: Layout, collection: 'facts' | 'runbooks', path: string): string | undefined {
  if (!lstatSync(path).isFile()) return 'not a plain file'
  let stored: { format?: unknown; entries?: unknown }
  try {
    stored = JSON.parse(readTextSync(path)) as typeof stored
  } catch (error) {
    return `unreadable: ${(error as Error).message}`
  }
  if (stored?.format !== 'foundry-records/1') return 'unknown format'
  const entries = stored.entries
  if (!entries || typeof entries !== 'object' || Array.isArray(entries)) return 'no entries'
  const valid = isRecordOf(collection)
  for (const [key, entry] of Object.entries(entries)) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string') return `entry ${key} is malformed`
    if (!isValidKey(collection, key)) return `entry ${key} is not a ${collection} key`
    if (fileIdentity(layout.file(collection, key)) === entry[0] && !valid(entry[1], key))
      return `entry ${key} is not a valid record`
  }
  return undefined
}

/** The retrievers' snapshots (bm25, minisearch): a head naming a build whose parts all exist and parse. */
function checkSnapshot(layout: Layout, found: Found): void {
  for (const retriever of ['bm25', 'minisearch'] as const) {
    const dir = join(layout.cache, 'meta', 'retriever', retriever)
    const head = join(dir, 'head')
    if (!existsSync(head)) continue
    const why = snapshotProblem(dir, head, retriever)
    if (why)
      found(
        'snapshot',
        dir,
        `retriever snapshot does not match its parts (${why})`,
        'discarded (rebuilt at the next search)',
        () => rmSync(dir, { recursive: true, force: true }),
      )
  }
}

/**
 * The parts a head names, and those of them that are JSON: bm25's `docs`, `ids`, `terms`, `data`,
 * `table` and its `blocks` of postings `postings-<i>` (a head of an earlier format: `docs`, `terms`,
 * `data` and `postings`); minisearch's `docs`, `terms` and `s<i>` shards.
 */
function snapshotParts(
  retriever: 'bm25' | 'minisearch',
  head: { shards?: unknown; blocks?: unknown },
): { parts: string[]; json: Set<string> } | undefined {
  if (retriever === 'bm25') {
    const { blocks } = head
    if (blocks === undefined) return { parts: ['docs', 'terms', 'data', 'postings'], json: new Set(['docs']) }
    if (typeof blocks !== 'number' || !Number.isSafeInteger(blocks) || blocks < 1) return undefined
    const postings = Array.from({ length: blocks }, (_, i) => `postings-${i}`)
    return { parts: ['docs', 'ids', 'terms', 'data', 'table', ...postings], json: new Set(['docs']) }
  }
  const { shards } = head
  if (typeof shards !== 'number' || !Number.isSafeInteger(shards) || shards < 1) return undefined
  const parts = ['docs', 'terms', ...Array.from({ length: shards }, (_, i) => `s${i}`)]
  return { parts, json: new Set(parts.filter((p) => p !== 'terms')) }
}

function snapshotProblem(dir: string, head: string, retriever: 'bm25' | 'minisearch'): string | undefined {
  let parsed: { build?: unknown; shards?: unknown; blocks?: unknown }
  try {
    parsed = JSON.parse(readTextSync(head)) as typeof parsed
  } catch (error) {
    return `head unreadable: ${(error as Error).message}`
  }
  const { build } = parsed ?? {}
  const expected = parsed && snapshotParts(retriever, parsed)
  if (typeof build !== 'string' || !/^[A-Za-z0-9._-]+$/.test(build) || !expected) return 'head malformed'
  for (const part of expected.parts) {
    const path = join(dir, build, part)
    let text: string
    try {
      text = readTextSync(path)
    } catch {
      return `part ${build}/${part} missing`
    }
    if (!expected.json.has(part)) continue
    try {
      JSON.parse(text)
    } catch {
      return `part ${build}/${part} unreadable`
    }
  }
  return undefined
}

/** Every fact file must read as a fact: one that cannot is quarantined with its reason, never deleted. */
function checkFacts(layout: Layout, findings: DoctorFinding[], found: Found): void {
  const folder = layout.folder('facts')
  let names: string[]
  try {
    names = readdirSync(folder).filter((n) => !n.startsWith('.'))
  } catch {
    return // no facts yet
  }
  const codec = codecOf('facts')
  for (const name of names.sort()) {
    const key = flatKey('facts', name)
    if (key === undefined) continue
    const path = join(folder, name)
    if (!isValidKey('facts', key)) {
      findings.push({
        status: 'unfixable',
        check: 'fact',
        path,
        message: `${name} is not named like a fact (fact-NNNN.md): rename or move it`,
      })
      continue
    }
    let reason: string | undefined
    try {
      const stat = lstatSync(path)
      if (!stat.isFile()) reason = stat.isSymbolicLink() ? 'it is a link, not a file' : 'it is not a plain file'
      else codec.decode(readTextSync(path), { key, file: name, modified: () => statSync(path).mtime })
    } catch (error) {
      if (error instanceof YamlNotLoaded) throw error // the caller's slip, never the file's fault
      reason = (error as Error).message
    }
    if (reason === undefined) continue
    const why = reason
    found('fact', path, `unreadable fact ${key}: ${why}`, `quarantined to ${quarantinePath(layout, name)}`, () =>
      quarantine(layout, path, name, why),
    )
  }
}

/** Where `name` goes in the quarantine: `<name>`, or `<name>.<n>` when an earlier one holds that name. */
function quarantinePath(layout: Layout, name: string): string {
  const dir = join(layout.base, QUARANTINE)
  let at = join(dir, name)
  for (let n = 1; lstatSync(at, { throwIfNoEntry: false }); n++) at = join(dir, `${name}.${n}`)
  return at
}

/** Move the file aside with its reason beside it (`<name>.reason.txt`); the reason is written first, so a moved file always has one. */
function quarantine(layout: Layout, path: string, name: string, reason: string): void {
  const target = quarantinePath(layout, name)
  mkdirSync(join(layout.base, QUARANTINE), { recursive: true })
  writeFileSync(
    `${target}.reason.txt`,
    `${basename(target)} was moved here from ${path} by foundry doctor on ${new Date().toISOString()}\nbecause it cannot be read as a fact: ${reason}\nFix it and move it back, or delete it once it is not needed.\n`,
  )
  renameSync(path, target)
}
