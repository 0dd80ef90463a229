// `fsp` is node:fs's `promises`, loaded on first use: a process that only reads never loads node:fs/promises (~2 ms).
import {
  closeSync,
  fsync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFile,
  writeFileSync,
  promises as fsp,
} from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const TEMP = /^\.(.+)\.(\d+)(?:-[0-9a-z]+)?\.tmp$/
let counter = 0

/** The temporary name a write to `name` uses: hidden, marked with the writer's pid, never a valid key. */
function tempName(name: string): string {
  return `.${name}.${process.pid}-${(++counter).toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`
}

export const isTempName = (name: string): boolean => TEMP.test(name)

/**
 * Replace `dir/name` with `data` so that readers see the old content or the new, never a mix: write
 * a temporary file in the same folder, then rename it over the target. With `durable`, the data is
 * fsynced before the rename and the folder after it, so the new content survives a power loss;
 * without it (derived cache files), a crash of the process still never leaves a partial file.
 * `dir` must exist and be a real path (see Guard.folder); `created` runs once the temporary file exists;
 * `fence` runs just before the rename and stops it by throwing (a lock holder that lost its lock).
 */
export async function writeAtomic(
  dir: string,
  name: string,
  data: string,
  durable: boolean,
  created?: () => void,
  fence?: () => void,
): Promise<void> {
  if (!durable && data.length <= SYNC_WRITE_LIMIT) return writeAtomicSync(dir, name, data, created, fence)
  const temp = join(dir, tempName(name))
  const handle = await fsp.open(temp, 'wx')
  created?.()
  try {
    try {
      await handle.writeFile(data)
      if (durable) await handle.sync()
    } finally {
      await handle.close()
    }
    fence?.()
    await fsp.rename(temp, join(dir, name))
  } catch (error) {
    await fsp.unlink(temp).catch(() => {})
    throw error
  }
  if (durable) await syncFolder(dir)
}

/**
 * A relaxed write this small (stats, INDEX.md) runs synchronously, as small reads do (io.ts): with
 * no fsync to wait for, the thread pool's round trips cost more than the write itself.
 */
const SYNC_WRITE_LIMIT = 64 * 1024

function writeAtomicSync(dir: string, name: string, data: string, created?: () => void, fence?: () => void): void {
  const temp = join(dir, tempName(name))
  const fd = openSync(temp, 'wx')
  created?.()
  try {
    try {
      writeFileSync(fd, data)
    } finally {
      closeSync(fd)
    }
    fence?.()
    renameSync(temp, join(dir, name))
  } catch (error) {
    try {
      unlinkSync(temp)
    } catch {
      // never created, or already gone
    }
    throw error
  }
}

/** One file of `writeAtomicMany`: `dir` as for `writeAtomic`. */
export interface AtomicFile {
  dir: string
  name: string
  data: string
}

/** Temporary files in flight at once: enough to keep the thread pool's fsyncs grouped, few enough for any descriptor limit. */
const AT_ONCE = 64
const fsyncFd = promisify(fsync)
const writeFd = promisify(writeFile)

/**
 * `writeAtomic` for many files, durable with one barrier: every temporary file is written (and,
 * with `durable`, fsynced) side by side, then each is renamed in turn, then each folder is fsynced
 * once. A crash before it resolves may keep any of the renames, never half a file. Small files are
 * created and written synchronously (io.ts), so the thread pool runs only their fsyncs. `created`
 * runs after each temporary file exists and after each rename; `fence` before the renames.
 */
export async function writeAtomicMany(
  files: readonly AtomicFile[],
  durable: boolean,
  created?: () => void,
  fence?: () => void,
): Promise<void> {
  const temps = files.map((file) => join(file.dir, tempName(file.name)))
  const written = new Set<string>()
  try {
    let next = 0
    const worker = async () => {
      while (next < files.length) {
        const i = next++
        const fd = openSync(temps[i]!, 'wx')
        written.add(temps[i]!)
        created?.()
        try {
          const { data } = files[i]!
          if (data.length <= SYNC_WRITE_LIMIT) writeFileSync(fd, data)
          else await writeFd(fd, data)
          if (durable) await fsyncFd(fd)
        } finally {
          closeSync(fd)
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, files.length) }, worker))
    // The renames run back to back on this thread: one fence before them is as late as any.
    fence?.()
    for (const [i, file] of files.entries()) {
      renameSync(temps[i]!, join(file.dir, file.name))
      written.delete(temps[i]!)
      created?.()
    }
  } catch (error) {
    for (const temp of written) {
      try {
        unlinkSync(temp)
      } catch {
        // already gone
      }
    }
    throw error
  }
  if (durable) for (const dir of new Set(files.map((f) => f.dir))) await syncFolder(dir)
}

/** Make a rename or unlink in `dir` durable. Platforms that cannot fsync a folder (Windows) skip it. */
export async function syncFolder(dir: string): Promise<void> {
  let handle
  try {
    handle = await fsp.open(dir, 'r')
    await handle.sync()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw error
  } finally {
    await handle?.close()
  }
}

/** How long a temporary file may sit before it is taken for abandoned, whoever wrote it. */
const ABANDONED_AFTER_MS = 10 * 60_000

/**
 * Remove temporary files a killed writer left behind among `names` (the entries of `dir`): those
 * whose writer process is gone from this machine, or that are older than ten minutes. Returns how
 * many were removed.
 */
export function sweepTemps(dir: string, names: string[]): number {
  let removed = 0
  for (const name of names) {
    if (!isAbandonedTemp(dir, name)) continue
    try {
      unlinkSync(join(dir, name))
      removed++
    } catch {
      // another process swept it first
    }
  }
  return removed
}

/** Whether `dir/name` is a temporary file whose writer is gone from this machine, or older than ten minutes. */
export function isAbandonedTemp(dir: string, name: string): boolean {
  const match = TEMP.exec(name)
  if (!match) return false
  const pid = Number(match[2])
  const stat = statSync(join(dir, name), { throwIfNoEntry: false })
  if (!stat) return false
  const old = Date.now() - stat.mtimeMs > ABANDONED_AFTER_MS
  return old || (pid !== process.pid && !isAlive(pid))
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
