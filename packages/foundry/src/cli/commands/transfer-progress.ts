import type { copyStorage } from '@foundry/kernel'

/** Redraw at most this often: a terminal line is cheap, thousands of them are not. */
const EVERY_MS = 100

export interface ProgressLine {
  /** The kernel's progress callback; undefined when nothing is drawn. */
  onProgress: NonNullable<Parameters<typeof copyStorage>[2]>['onProgress']
  /** Clear the line (call before printing the result). */
  done(): void
}

/**
 * A one-line counter on `stream` (`import: 1200/2000 facts`) while a copy or a merge runs, redrawn
 * in place; only when the stream is a terminal, so pipes, files and CI logs stay quiet.
 */
export function progressLine(verb: string, stream: NodeJS.WriteStream = process.stderr): ProgressLine {
  if (!stream.isTTY) return { onProgress: undefined, done() {} }
  let drawn = false
  let last = 0
  return {
    onProgress({ stage, done, total }) {
      const now = Date.now()
      if (now - last < EVERY_MS && done < total) return
      last = now
      drawn = true
      stream.write(`\r${verb}: ${done}/${total} ${stage}\u001b[K`)
    },
    done() {
      if (drawn) stream.write('\r\u001b[K')
    },
  }
}
