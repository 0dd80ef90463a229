import { readdirSync, statSync, type Dirent } from 'node:fs'
import { dirname, join } from 'node:path'
import { isValidKey, type CollectionName } from '@foundry/kernel'
import { isTempName } from './atomic.js'
import type { Guard } from './guard.js'
import { ARTIFACT_EXT, flatKey, INDEX_META_KEY, isFlat, type Layout } from './layout.js'

/** A record file found on disk. */
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
    else out.misfits.push({ key, path, message: `${path} is not named like a ${collection} record (expected ${SHAPES[collection]}); rename it` })
  }
  /** The visible entries of a folder, each with its real path when it is a plain file. */
  const entries = (dir: string): Array<Dirent & { real?: string }> => {
    const real = guard.existing(dir)
    if (real === undefined) return []
    const list = readdirSync(real, { withFileTypes: true })
    const temps = list.filter((e) => isTempName(e.name)).map((e) => e.name)
    if (temps.length) out.temps.push({ dir: real, names: temps })
    return list.filter((e) => !e.name.startsWith('.')).map((e) => Object.assign(e, e.isFile() ? { real: join(real, e.name) } : {}))
  }
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
      let agents: ReturnType<typeof entries>
      try {
        agents = entries(dir)
      } catch (error) {
        out.misfits.push({ key: `${wave.name}/`, path: dir, message: (error as Error).message })
        continue
      }
      for (const agent of agents)
        if (agent.name.endsWith(ARTIFACT_EXT)) add(`${wave.name}/${agent.name.slice(0, -ARTIFACT_EXT.length)}`, join(dir, agent.name), agent.real)
    }
  } else {
    if (INDEX_META_KEY.startsWith(prefix)) {
      const path = layout.file('meta', INDEX_META_KEY)
      if (guard.existing(path) !== undefined) add(INDEX_META_KEY, path)
      // INDEX.md lives outside the meta folder: what a writer killed while replacing it left is there.
      const home = guard.existing(dirname(path))
      const temps = home === undefined ? [] : readdirSync(home).filter(isTempName)
      if (temps.length) out.temps.push({ dir: home!, names: temps })
    }
    // Walk only below the folder the prefix names in full: `retriever/minisearch/` starts there.
    const fixed = prefix.slice(0, prefix.lastIndexOf('/') + 1).split('/').filter(Boolean)
    const walk = (dir: string, names: string[]) => {
      let list: ReturnType<typeof entries>
      try {
        list = entries(dir)
      } catch (error) {
        out.misfits.push({ key: `${names.join('/')}/`, path: dir, message: (error as Error).message })
        return
      }
      for (const entry of list) {
        const path = join(dir, entry.name)
        const key = [...names, entry.name].join('/')
        if (entry.isDirectory() || (entry.isSymbolicLink() && isFolder(guard, path))) walk(path, [...names, entry.name])
        else if (key !== INDEX_META_KEY) add(key, path, entry.real)
      }
    }
    walk(join(folder, ...fixed), fixed)
  }
  out.found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return out
}

const SHAPES: Record<CollectionName, string> = {
  facts: 'fact-NNNN.md',
  runbooks: '<lowercase-slug>.md',
  contracts: '<id>.json',
  artifacts: '<wave>/<agent>.json',
  meta: 'names of [A-Za-z0-9._-]',
}

function isFolder(guard: Guard, path: string): boolean {
  try {
    const real = guard.existing(path)
    return real !== undefined && statSync(real).isDirectory()
  } catch {
    return false // a link out of the folder, or to a file: read as a record, and refused there
  }
}
