// `fsp` is node:fs's `promises`, loaded on first use: a process that only reads never loads node:fs/promises (~2 ms).
import { constants, promises as fsp } from 'node:fs'
import { relative, resolve, sep } from 'node:path'
import { FoundryError } from '@foundry/kernel'

/** The largest file `contract_validate {path}` reads: an artifact is a JSON object, not a data set. */
export const READ_FILE_MAX_BYTES = 4 * 1024 * 1024

/**
 * The text of a file the project was asked to read (`contract_validate {path}`): `path` (relative
 * to `root`, or absolute) must resolve, after every link, to a regular file inside `root` no larger
 * than `maxBytes`. Anything else is refused before a byte is read: INVALID_INPUT for a path
 * outside the project, a FIFO, a device or a folder, or an oversize file; NOT_FOUND when it is
 * missing. Messages name the path, never what the file holds.
 */
export async function readContainedFile(root: string, path: string, maxBytes = READ_FILE_MAX_BYTES): Promise<string> {
  const full = resolve(root, path)
  let real: string
  let home: string
  try {
    home = await fsp.realpath(root)
    real = await fsp.realpath(full)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = `Cannot read ${full}: ${code ?? 'unreadable'}; pass a JSON file inside the project, or the artifact itself as data.`
    throw new FoundryError(code === 'ENOENT' || code === 'ENOTDIR' ? 'NOT_FOUND' : 'INVALID_INPUT', why)
  }
  const rel = relative(home, real)
  if (rel === '' || rel === '..' || rel.startsWith('..' + sep) || resolve(home, rel) !== real)
    throw new FoundryError(
      'INVALID_INPUT',
      `${path} is outside the project ${root} (after links); pass a JSON file inside the project, or the artifact itself as data.`,
    )
  // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; O_NOFOLLOW: the
  // file checked above is not swapped for a link in between.
  const flags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0)
  let handle
  try {
    handle = await fsp.open(real, flags)
  } catch (error) {
    throw new FoundryError(
      'INVALID_INPUT',
      `Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}; pass a regular JSON file inside the project.`,
    )
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile())
      throw new FoundryError(
        'INVALID_INPUT',
        `${path} is not a regular file (a folder, a FIFO or a device); pass a JSON file.`,
      )
    const tooBig = (size: number) =>
      new FoundryError('INVALID_INPUT', `${path} is ${size} bytes; the limit is ${maxBytes}. Pass a smaller artifact.`)
    if (stat.size > maxBytes) throw tooBig(stat.size)
    // Read at most one byte past the limit: a file that grows meanwhile is still refused, never read whole.
    const buffer = Buffer.alloc(Math.min(maxBytes + 1, stat.size + 1))
    let read = 0
    for (;;) {
      const { bytesRead } = await handle.read(buffer, read, buffer.length - read, read)
      if (bytesRead === 0) break
      read += bytesRead
      if (read === buffer.length) {
        if (read > maxBytes) throw tooBig(read)
        break
      }
    }
    return buffer.subarray(0, read).toString('utf8')
  } finally {
    await handle.close()
  }
}
