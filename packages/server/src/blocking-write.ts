import { writeSync } from 'node:fs'

/**
 * Write `text` whole on descriptor `fd` (1 or 2) with blocking writes, as `process.stdout` and
 * `process.stderr` write a file or a pipe on POSIX: creating those streams would load Node's stream
 * and net modules, a few ms of a short-lived process (a hook, `foundry list`). What a descriptor set
 * not to block refuses (EAGAIN), and anything on Windows, goes through the process's stream, which
 * waits for it to drain before the process exits.
 */
export function writeAll(fd: 1 | 2, text: string): void {
  if (!text) return
  let bytes = Buffer.from(text, 'utf8')
  if (process.platform !== 'win32')
    try {
      while (bytes.length) bytes = bytes.subarray(writeSync(fd, bytes))
      return
    } catch {
      // not written (or not all): the stream writes the rest
    }
  ;(fd === 1 ? process.stdout : process.stderr).write(bytes)
}
