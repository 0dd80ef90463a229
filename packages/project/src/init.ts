// `fsp` is node:fs's `promises`, loaded on first use: a process that only reads never loads node:fs/promises (~2 ms).
import { existsSync, promises as fsp } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { FoundryError } from '@foundry/kernel'
import { override, readProjectConfig, type AdapterOverride } from './config.js'
import { DATA_FOLDER, findProjectRoot, isProject } from './find.js'
import { builtinRegistry, resolveAdapter } from './registry.js'

export interface InitProjectOptions {
  /** The folder to make a project of (created when missing, like `git init <dir>`). */
  root: string
  /** The storage of a new project, default `fs`; on an existing project it must be the one it uses. */
  storage?: AdapterOverride
}

export interface InitResult {
  /** Absolute. */
  root: string
  /** config.json, absolute. */
  file: string
  /** True when config.json was written now: a new project (or a `.foundry/` that had none). */
  created: boolean
  /** True when an existing config.json in the old shape was rewritten in the current one. */
  migrated: boolean
  /** The storage kind the project uses. */
  storage: string
  /** The project this new one sits inside, when `root` is a subfolder of one. */
  parent?: string
}

/**
 * Make `root` a Foundry project: `.foundry/` and `config.json` (`{ "storage": { "kind": … } }`).
 * The only function that creates a project. On an existing one it changes nothing, except
 * rewriting a config.json in the old shape (`"storage": "sqlite"`) in the current shape; asking
 * for another storage than the one it uses throws CONFLICT.
 */
export async function initProject(options: InitProjectOptions): Promise<InitResult> {
  const root = resolve(options.root)
  const existed = isProject(root)
  const parent = existed ? undefined : findProjectRoot(dirname(root))
  const current = await readProjectConfig(root)
  const file = current.file
  if (current.exists) {
    const wanted = override(current.storage, options.storage)
    if (wanted.kind !== current.storage.kind)
      throw new FoundryError(
        'CONFLICT',
        `The project already uses storage "${current.storage.kind}" (${file}); move the data with \`foundry export\` and \`foundry import\`, then change "storage"`,
      )
    if (current.legacy) await writeJson(file, current.normalized)
    return { root, file, created: false, migrated: current.legacy, storage: current.storage.kind }
  }
  // Checked before anything is created: a built-in kind, with valid options (a third-party kind needs
  // its "adapters" entry, so such a project starts from a config.json written by hand).
  const { choice: storage, descriptor } = await resolveAdapter(
    builtinRegistry(),
    'storage',
    override(current.storage, options.storage),
    `${file} (new)`,
  )
  const dataDir = join(root, DATA_FOLDER)
  const madeDataDir = !existsSync(dataDir)
  await fsp.mkdir(dataDir, { recursive: true })
  await writeJson(file, { storage: { kind: storage.kind, ...storage.options } })
  // The storage must open (a database reached, its schema made) before the project exists: a failed
  // init leaves nothing behind, so the next init starts afresh instead of failing the same way.
  try {
    const opened = await descriptor.open(storage.options, { root, dataDir })
    await opened.close?.()
  } catch (error) {
    await (madeDataDir ? fsp.rm(dataDir, { recursive: true, force: true }) : fsp.rm(file, { force: true }))
    throw error
  }
  return { root, file, created: true, migrated: false, storage: storage.kind, ...(parent && { parent }) }
}

/** Write JSON through a temporary file and a rename: a reader never sees half a config. */
async function writeJson(file: string, value: unknown): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`
  await fsp.writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`)
  await fsp.rename(temporary, file)
}
