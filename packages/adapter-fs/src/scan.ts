import { readdirSync, statSync, type Dirent } from 'node:fs'
import { dirname, join } from 'node:path'
import { isValidKey, type CollectionName } from '@foundry/kernel/adapter'
import { isTempName } from './atomic.js'
import type { Guard } from './guard.js'
import { flatKey, INDEX_META_KEY, isFlat, JSON_EXT, LOG_EXT, type Layout } from './layout.js'

/** A record (or log) file found on disk. */
export interface Found {
  key: string
  path: string
  /** Its real path when it is a plain file in a checked folder; links are resolved (and checked) when read. */
  real?: string
}

/** A file that looks like a record but cannot be one (a bad name, a link out of the folder). */
export interface Misfit {
  key: string
  path: string
  message: string
}

export interface Scan {
  found: Found[]
  misfits: Misfit[]
  /** Folders holding temporary files, with their names: candidates for `sweepTemps`. */
  temps: Array<{ dir: string; names: string[] }>
}

type Entry = Dirent & { real?: string }

/**
 * The record files of a collection whose keys start with `prefix`, ordered by key. Reads folder
 * listings only; entries that cannot be records are reported as misfits rather than thrown, so one
 * stray file never hides the rest.
 */
export function scan(collection: CollectionName, prefix: string, layout: Layout, guard: Guard): Scan {
  const out: Scan = { found: [], misfits: [], temps: [] }
  const add = (key: string, path: string, real?: string) => {
    if (!key.startsWith(prefix)) return
    if (isValidKey(collection, key)) out.found.push(real === undefined ? { key, path } : { key, path, real })
    else
      out.misfits.push({
        key,
        path,
        message: `${path} is not named like a ${collection} record (expected ${shapeOf(collection)}); rename it`,
      })
  }
  const entries = lister(guard, out)
  const folder = layout.folder(collection)

  if (isFlat(collection)) {
    for (const entry of entries(folder)) {
      const key = flatKey(collection, entry.name)
      if (key !== undefined) add(key, join(folder, entry.name), entry.real)
    }
  } else if (collection === 'artifacts') {
    // `w1/` reads only the folder of wave w1; `w` reads every wave whose name starts with it.
    const slash = prefix.indexOf('/')
    const waves = entries(folder)
      .filter((e) => e.isDirectory() || e.isSymbolicLink())
      .filter((e) => (slash < 0 ? e.name.startsWith(prefix) : e.name === prefix.slice(0, slash)))
    for (const wave of waves) {
      const dir = join(folder, wave.name)
      let agents: Entry[]
      try {
        agents = entries(dir)
      } catch (error) {
        out.misfits.push({ key: `${wave.name}/`, path: dir, message: (error as Error).message })
        continue
      }
      for (const agent of agents)
        if (agent.name.endsWith(JSON_EXT))
          add(`${wave.name}/${agent.name.slice(0, -JSON_EXT.length)}`, join(dir, agent.name), agent.real)
    }
  } else {
    if (collection === 'meta' && INDEX_META_KEY.startsWith(prefix)) {
      const path = layout.file('meta', INDEX_META_KEY)
      if (guard.existing(path) !== undefined) add(INDEX_META_KEY, path)
      // INDEX.md lives outside the meta folder: what a writer killed while replacing it left is there.
      const home = guard.existing(dirname(path))
      const temps = home === undefined ? [] : readdirSync(home).filter(isTempName)
      if (temps.length) out.temps.push({ dir: home!, names: temps })
    }
    // Meta files are named by the key itself; open collections' files are `<key>.json`.
    const ext = collection === 'meta' ? '' : JSON_EXT
    walkNames(
      folder,
      prefix,
      ext,
      guard,
      entries,
      (key, path, real) => {
        if (!(collection === 'meta' && key === INDEX_META_KEY)) add(key, path, real)
      },
      (key, path, error) => out.misfits.push({ key, path, message: (error as Error).message }),
    )
  }
  out.found.sort(byKey)
  return out
}

/** The log files whose names start with `prefix`, ordered by name. Throws CORRUPT for a link out of the folder. */
export function scanLogs(prefix: string, layout: Layout, guard: Guard): Found[] {
  const found: Found[] = []
  const entries = lister(guard, { found: [], misfits: [], temps: [] })
  const fail = (_name: string, _path: string, error: unknown) => {
    throw error
  }
  walkNames(
    layout.logs,
    prefix,
    LOG_EXT,
    guard,
    entries,
    (name, path, real) => {
      if (name.startsWith(prefix) && isValidKey('meta', name))
        found.push(real === undefined ? { key: name, path } : { key: name, path, real })
    },
    fail,
  )
  return found.sort(byKey)
}

/** Lists a folder's visible entries, each with its real path when it is a plain file; notes temporary files in `out`. */
function lister(guard: Guard, out: Scan): (dir: string) => Entry[] {
  return (dir) => {
    const real = guard.existing(dir)
    if (real === undefined) return []
    const list = readdirSync(real, { withFileTypes: true })
    const temps = list.filter((e) => isTempName(e.name)).map((e) => e.name)
    if (temps.length) out.temps.push({ dir: real, names: temps })
    return list
      .filter((e) => !e.name.startsWith('.'))
      .map((e) => Object.assign(e, e.isFile() ? { real: join(real, e.name) } : {}))
  }
}

/**
 * Visit the files below `folder` named by slash-separated names (folders are the leading names, a
 * file `<last name><ext>`), walking only below the folder that `prefix` names in full:
 * `retriever/minisearch/` starts there. With an `ext`, other files are ignored.
 */
function walkNames(
  folder: string,
  prefix: string,
  ext: string,
  guard: Guard,
  entries: (dir: string) => Entry[],
  visit: (name: string, path: string, real?: string) => void,
  problem: (name: string, path: string, error: unknown) => void,
): void {
  const walk = (dir: string, names: string[]) => {
    let list: Entry[]
    try {
      list = entries(dir)
    } catch (error) {
      problem(`${names.join('/')}/`, dir, error)
      return
    }
    for (const entry of list) {
      const path = join(dir, entry.name)
      if (entry.isDirectory() || (entry.isSymbolicLink() && isFolder(guard, path))) walk(path, [...names, entry.name])
      else if (entry.name.endsWith(ext) && entry.name.length > ext.length)
        visit([...names, entry.name.slice(0, entry.name.length - ext.length)].join('/'), path, entry.real)
    }
  }
  const fixed = prefix
    .slice(0, prefix.lastIndexOf('/') + 1)
    .split('/')
    .filter(Boolean)
  walk(join(folder, ...fixed), fixed)
}

const byKey = (a: Found, b: Found) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

const SHAPES: Record<string, string> = {
  facts: 'fact-NNNN.md',
  runbooks: '<lowercase-slug>.md',
  contracts: '<id>.json',
  artifacts: '<wave>/<agent>.json',
  meta: 'names of [A-Za-z0-9._-]',
}
const shapeOf = (collection: CollectionName) =>
  SHAPES[collection] ?? 'slash-separated names of [A-Za-z0-9._-], each file <name>.json'

function isFolder(guard: Guard, path: string): boolean {
  try {
    const real = guard.existing(path)
    return real !== undefined && statSync(real).isDirectory()
  } catch {
    return false // a link out of the folder, or to a file: read as a record, and refused there
  }
}
