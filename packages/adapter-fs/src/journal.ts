import { closeSync, constants, lstatSync, openSync, readSync, statSync, unlinkSync } from 'node:fs'
import type { CollectionName } from '@foundry/kernel/adapter'
import { appendLine } from './io.js'

/**
 * Revisions and change lists, one append-only journal per collection (`cache/<collection>.journal`).
 *
 * Every put or delete appends one line: `put fact-0004 <t0>,<t1>,<t2>`, the states (modification
 * times in nanoseconds) the collection's folder went through: before the change, after the
 * temporary file appeared, after the rename. A revision token is `<inode>.<size>.<mtime>`: the
 * journal's identity and length, and the folder's modification time. Reading it costs two `stat`s.
 *
 * `changes(since)` reads the journal from the token's offset and checks that its lines explain
 * every folder state from the token's to the current one. Files added, removed or renamed by other
 * means (by hand, by git) change the folder's time without a journal line, so the chain breaks and
 * `changes` answers undefined: the kernel then lists the collection again. A file edited in place
 * changes neither: `memory.index()` (`foundry index`) re-reads everything. Two processes writing
 * the same collection outside the exclusive section may also break the chain; the answer is then
 * undefined too, never wrong. Meta has no folder watch: only its journal counts.
 *
 * The journal is a cache: deleting it is safe (tokens that name it answer undefined), and it is
 * started afresh past 4 MiB. It is never read or written through a link: a link in its place is
 * replaced by a journal of its own.
 */
export interface Journal {
  revision(collection: CollectionName): string
  /** The watched folder's state now, to pass to `record`. */
  state(collection: CollectionName): bigint
  /** Record a change of `key` (`tmp` for a sweep of temporary files: no key changed). */
  record(collection: CollectionName, op: 'put' | 'del' | 'tmp', key: string, states: bigint[]): void
  changes(collection: CollectionName, since: string): string[] | undefined
}

export interface JournalPaths {
  /** The journal file of a collection. */
  journal(collection: CollectionName): string
  /** The folder whose modification time stands for hand-made changes, or undefined. */
  watched(collection: CollectionName): string | undefined
  /** Called before each append, to create the cache folder and check it stays inside the data folder. */
  prepare(): void
}

const LIMIT = 4 * 1024 * 1024
const TOKEN = /^(\d+)\.(\d+)\.(\d+)$/
const LINE = /^(put|del|tmp) (\S+) (\d+(?:,\d+)*)$/

export function createJournal(paths: JournalPaths): Journal {
  const state = (collection: CollectionName): bigint => {
    const dir = paths.watched(collection)
    return dir === undefined ? 0n : (statSync(dir, { bigint: true, throwIfNoEntry: false })?.mtimeNs ?? 0n)
  }
  // lstat: a journal replaced by a link is never followed (its token then names the link, and reading it fails).
  const head = (collection: CollectionName) =>
    lstatSync(paths.journal(collection), { bigint: true, throwIfNoEntry: false })

  return {
    state,

    revision(collection) {
      const journal = head(collection)
      return `${journal?.ino ?? 0n}.${journal?.size ?? 0n}.${state(collection)}`
    },

    record(collection, op, key, states) {
      paths.prepare()
      const path = paths.journal(collection)
      const size = appendLine(path, `${op} ${key} ${states.join(',')}`, { replaceLink: true })
      if (size > LIMIT) {
        try {
          unlinkSync(path)
        } catch {
          // another writer started it afresh first
        }
      }
    },

    changes(collection, since) {
      const token = TOKEN.exec(since)
      if (!token) return undefined
      const [, ino, from, mtime] = token as unknown as [string, string, string, string]
      const journal = head(collection)
      const now = state(collection)
      if (!journal) return from === '0' && String(now) === mtime ? [] : undefined
      // A token from before the journal existed can follow it from its start: the folder chain
      // proves nothing was lost (meta has no folder to prove it with).
      const fresh = ino === '0' && from === '0' && paths.watched(collection) !== undefined
      if (
        (String(journal.ino) !== ino && !fresh) ||
        journal.size < BigInt(from) ||
        journal.size - BigInt(from) > BigInt(LIMIT)
      )
        return undefined
      const lines = readTail(paths.journal(collection), Number(from), Number(journal.size - BigInt(from)))
      if (lines === undefined) return undefined
      let at = mtime
      const keys: string[] = []
      for (const line of lines) {
        const parsed = LINE.exec(line)
        if (!parsed) return undefined
        const [, op, key, list] = parsed as unknown as [string, string, string, string]
        const states = list.split(',')
        // The token's state must be one this change went through; then the folder is at its last state.
        if (!states.includes(at)) return undefined
        at = states[states.length - 1]!
        if (op !== 'tmp') keys.push(key)
      }
      return at === String(now) ? keys : undefined
    },
  }
}

/** The complete lines in `length` bytes from `offset`; undefined when the file changed under us. */
function readTail(path: string, offset: number, length: number): string[] | undefined {
  if (length === 0) return []
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  } catch {
    return undefined // gone, or a link: never read through
  }
  try {
    const buffer = Buffer.allocUnsafe(length)
    let read = 0
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, offset + read)
      if (n === 0) return undefined
      read += n
    }
    const text = buffer.toString('utf8')
    if (!text.endsWith('\n')) return undefined
    return text.slice(0, -1).split('\n')
  } finally {
    closeSync(fd)
  }
}
