import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFile,
  readFileSync,
  readSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs'
import { isAscii } from 'node:buffer'
import { promisify } from 'node:util'

/*
 * Small reads, stats and appends run synchronously: they take microseconds, and through the thread
 * pool they cost 10–20× more (measured here: stat 3.5 µs sync, 75 µs async; reading a 600-byte file
 * 8 µs sync, 170 µs async). Large reads and the writes that wait on fsync (atomic.ts) run on the
 * thread pool, so a server's event loop stays free while the disk works.
 */

const SYNC_READ_LIMIT = 1024 * 1024

const readFd = promisify(readFile)

/**
 * The whole regular file as UTF-8 text: small files synchronously, large ones (snapshots) on the
 * thread pool. Anything else in a record's place (a FIFO, a socket, a device) is refused without
 * blocking: it is opened non-blocking and checked before a byte is read, so a FIFO named like a
 * record can never hang a reader, or a writer holding the lock. A folder throws EISDIR, as a read does.
 */
export async function readText(path: string): Promise<string> {
  const fd = openRegular(path)
  try {
    const size = fstatSync(fd).size
    return utf8(size <= SYNC_READ_LIMIT ? readFileSync(fd) : await readFd(fd))
  } finally {
    closeSync(fd)
  }
}

/** Bytes as UTF-8 text; ASCII (snapshots, most records) copied as one byte a character, a fraction of decoding's cost. */
function utf8(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')
}

/** `readText`, synchronously, for small derived files (caches, lock owners, snapshot heads). */
export function readTextSync(path: string): string {
  const fd = openRegular(path)
  try {
    return utf8(readFileSync(fd))
  } finally {
    closeSync(fd)
  }
}

/**
 * Open a regular file for reading without ever blocking: non-blocking, then checked, so a FIFO,
 * socket or device in a file's place throws `NotRegularFile` at once. A folder throws EISDIR, as a
 * read of it does. Missing files throw ENOENT.
 */
export function openRegular(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    assertRegular(fstatSync(fd), path)
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** Throws unless `stat` is a regular file's: EISDIR for a folder, `NotRegularFile` for anything else. */
export function assertRegular(stat: Stats, path: string): void {
  if (stat.isFile()) return
  if (stat.isDirectory())
    throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: 'EISDIR' })
  throw new NotRegularFile()
}

/** Something other than a regular file stands where a record's file should (a FIFO, a socket, a device). */
export class NotRegularFile extends Error {
  override readonly name = 'NotRegularFile'
  constructor() {
    super('it is not a regular file (a FIFO, socket or device); move it away')
  }
}

/**
 * Append one line with a single O_APPEND write, creating the file when missing (its folder must exist).
 * The kernel positions each O_APPEND write at the end of the file as one step, so lines from
 * concurrent writers never interleave. Returns the file's size after the write.
 */
export function appendLine(
  path: string,
  line: string,
  options: { replaceLink?: boolean; afterTornLine?: boolean } = {},
): number {
  let data = Buffer.from(line.endsWith('\n') ? line : `${line}\n`, 'utf8')
  const fd = options.replaceLink ? openOwnFile(path) : openSync(path, options.afterTornLine ? 'a+' : 'a')
  try {
    if (options.afterTornLine) {
      // A line a killed writer cut short stays unreadable on its own line, rather than swallowing
      // this one (as log-file.ts does); two appenders doing this at once leave an empty line.
      const size = fstatSync(fd).size
      const last = Buffer.alloc(1)
      if (size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a)
        data = Buffer.concat([Buffer.from('\n'), data])
    }
    const written = writeSync(fd, data)
    if (written !== data.length)
      throw new Error(`short append to ${path}: ${written} of ${data.length} bytes (disk full?)`)
    return fstatSync(fd).size
  } finally {
    closeSync(fd)
  }
}

/**
 * Open `path` for appending without following a link: a link in its place (a derived file, such as a
 * journal, linked elsewhere) is removed and a file of its own created, so nothing is written through it.
 */
function openOwnFile(path: string): number {
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT
  for (let attempt = 0; ; attempt++) {
    try {
      if (constants.O_NOFOLLOW === undefined && lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink())
        throw Object.assign(new Error('a link'), { code: 'ELOOP' })
      return openSync(path, flags | (constants.O_NOFOLLOW ?? 0), 0o666)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if ((code !== 'ELOOP' && code !== 'EMLINK') || attempt > 2) throw error
      try {
        unlinkSync(path) // the link itself, never what it points to
      } catch {
        // another writer replaced it first
      }
    }
  }
}
