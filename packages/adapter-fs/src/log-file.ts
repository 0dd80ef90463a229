// `fsp` is node:fs's `promises`, loaded on first use: a process that only reads never loads node:fs/promises (~2 ms).
import { closeSync, constants, fstatSync, readSync, promises as fsp } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { LogPage } from '@foundry/kernel/adapter'
import { syncFolder } from './atomic.js'
import { isMissing } from './guard.js'
import { assertRegular, openRegular } from './io.js'

/*
 * A log file (`logs/<name>.jsonl`) holds one entry a line, each JSON-encoded as a string (so an
 * entry may hold newlines), and a cursor is a byte offset at the start of a line.
 *
 * A crash (or a full disk) can leave a last line without its newline. That line is never returned:
 * readers take only lines ending in a newline and skip any that is not a JSON string, and an
 * appender that finds the file not ending in a newline starts its write with one, so the torn line
 * ends there, unreadable, and every later entry is whole. The cut entry is lost; nothing after it.
 * (An appender that looks while another's large write is still landing takes it for torn too: its
 * newline then makes an empty line, which readers skip.)
 */

const NEWLINE = 0x0a
const QUOTE = 0x22
const FIRST_CHUNK = 64 * 1024
const MAX_CHUNK = 8 * 1024 * 1024

/**
 * Append `entries` to the log file at `path` (created when missing; its folder must exist) in one
 * O_APPEND write, so concurrent appenders, in this process or others, never interleave. With
 * `durable`, the data (and a new file's folder entry) is fsynced before this resolves. Returns the
 * cursor after the last of them.
 */
export async function appendEntries(path: string, entries: readonly string[], durable: boolean): Promise<number> {
  const body = Buffer.from(entries.map((entry) => `${JSON.stringify(String(entry))}\n`).join(''), 'utf8')
  const handle = await fsp.open(
    path,
    constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK,
    0o666,
  )
  try {
    const stat = await handle.stat()
    assertRegular(stat, path) // a FIFO in a log's place would take the entries, or block
    const before = stat.size
    const torn = before > 0 && (await byteAt(handle, before - 1)) !== NEWLINE
    const data = torn ? Buffer.concat([Buffer.from('\n'), body]) : body
    const { bytesWritten } = await handle.write(data, 0, data.length)
    if (bytesWritten !== data.length)
      throw new Error(`short append to ${path}: ${bytesWritten} of ${data.length} bytes (disk full?)`)
    if (durable) {
      await handle.datasync()
      if (before === 0) await syncFolder(dirname(path)) // the file may be new: make its name durable too
    }
    const after = (await handle.stat()).size
    if (after - before === data.length) return after
    // Others appended between the two stats: ours landed somewhere in between, at a line start.
    const between = await readRange(handle, before, after - before)
    const at = between.indexOf(data)
    return at < 0 ? after : before + at + data.length
  } finally {
    await handle.close()
  }
}

/** Entries from `cursor`, at most `limit`, and the cursor after the last line consumed. A missing file reads as empty. */
export async function readEntries(path: string, cursor: number, limit = Infinity): Promise<LogPage> {
  let handle: FileHandle
  try {
    handle = await fsp.open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    if (isMissing(error)) return { entries: [], cursor }
    throw error
  }
  try {
    const stat = await handle.stat()
    assertRegular(stat, path)
    const size = stat.size
    const entries: string[] = []
    let at = Math.max(0, Math.floor(cursor)) // the start of the first line not consumed yet
    let pending: Buffer = Buffer.alloc(0) // bytes read from `at` on
    let chunk = FIRST_CHUNK
    while (entries.length < limit && at + pending.length < size) {
      const read = await readRange(handle, at + pending.length, Math.min(chunk, size - at - pending.length))
      if (read.length === 0) break // the file shrank under us
      pending = pending.length ? Buffer.concat([pending, read]) : read
      chunk = Math.min(chunk * 2, MAX_CHUNK)
      let start = 0
      for (
        let end = pending.indexOf(NEWLINE);
        end >= 0 && entries.length < limit;
        end = pending.indexOf(NEWLINE, start)
      ) {
        const entry = parseLine(pending.subarray(start, end))
        if (entry !== undefined) entries.push(entry)
        start = end + 1
      }
      at += start
      pending = pending.subarray(start)
    }
    return { entries, cursor: at }
  } finally {
    await handle.close()
  }
}

/**
 * The cursor after the last whole line (0 for a missing file): a stat and a one-byte read, and a
 * backward search only when the last line is torn.
 */
export function endOf(path: string): number {
  let fd: number
  try {
    fd = openRegular(path)
  } catch (error) {
    if (isMissing(error)) return 0
    throw error
  }
  try {
    const size = fstatSync(fd).size
    const last = Buffer.alloc(1)
    if (size === 0 || (readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === NEWLINE)) return size
    const buffer = Buffer.alloc(Math.min(size, FIRST_CHUNK))
    for (let end = size - 1; end > 0; ) {
      const from = Math.max(0, end - buffer.length)
      const newline = buffer.subarray(0, readSync(fd, buffer, 0, end - from, from)).lastIndexOf(NEWLINE)
      if (newline >= 0) return from + newline + 1
      end = from
    }
    return 0
  } finally {
    closeSync(fd)
  }
}

/** The entry a line holds, or undefined for a line that is not a JSON string (a torn one, an empty one). */
function parseLine(line: Buffer): string | undefined {
  if (line.length < 2 || line[0] !== QUOTE || line[line.length - 1] !== QUOTE) return undefined
  try {
    const entry: unknown = JSON.parse(line.toString('utf8'))
    return typeof entry === 'string' ? entry : undefined
  } catch {
    return undefined
  }
}

async function byteAt(handle: FileHandle, position: number): Promise<number | undefined> {
  const buffer = Buffer.alloc(1)
  const { bytesRead } = await handle.read(buffer, 0, 1, position)
  return bytesRead ? buffer[0] : undefined
}

/** Up to `length` bytes from `position` (fewer at the end of the file). */
async function readRange(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length)
  let read = 0
  while (read < length) {
    const { bytesRead } = await handle.read(buffer, read, length - read, position + read)
    if (bytesRead === 0) break
    read += bytesRead
  }
  return buffer.subarray(0, read)
}
