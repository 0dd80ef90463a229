/**
 * Records read outside a write section, kept with the collection revision they were read at, so a
 * warm process serves a repeated read (a search's hits) without a round trip. A record is served
 * only at the revision it is stamped with; when the collection has moved on, the entries of a stamp
 * are brought forward through the change log in one round trip (the keys changed since are dropped),
 * shared by every read waiting on it. Bounded by the characters of text it holds, least recently
 * used dropped first.
 */
export interface RecordCache {
  /**
   * The text of `c/key` as of revision `now` (the collection's current revision, known without a
   * round trip), or undefined on a miss: never cached, dropped, or changed since it was read.
   */
  lookup(c: string, key: string, now: string): Promise<string | undefined>
  /** Keep the text a read begun at revision `at` found (it may be newer than `at`: a later catch-up then drops it, never serves it stale). */
  keep(c: string, key: string, text: string, at: string): void
  /** This process wrote or deleted `c/key`: its entry is dropped at once. */
  evict(c: string, key: string): void
}

/** One change of a collection's log: its number, key and token (`<n>.<token>` is the revision after it). */
export interface LoggedChange {
  n: string
  key: string
  token: string
}

export interface RecordCacheOptions {
  /** Characters of record text kept at most; 0 keeps nothing. */
  maxChars: number
  /** The changes of `c` numbered `n` and later, oldest first (those trimmed from the log are absent). */
  changesFrom(c: string, n: number): Promise<LoggedChange[]>
}

/** The changes of `c` numbered `n` and later, oldest first, as `LoggedChange` rows. */
export const changesFromStatement = (c: string, n: number) => ({
  name: 'foundry_changes_from',
  text: 'SELECT n::text, key, token::text FROM foundry_changes WHERE collection = $1 AND n >= $2 ORDER BY n',
  values: [c, n],
})

/** A revision shared by the entries read at it: bringing it forward moves them all at once. `''`: dropped. */
interface Stamp {
  token: string
}

interface Entry {
  text: string
  stamp: Stamp
}

/** `<n>.<token>`: a revision this database wrote (`0` is a collection never written: nothing to bring forward from). */
const REVISION = /^(\d+)\.(\d+)$/

export function createRecordCache(options: RecordCacheOptions): RecordCache {
  const { maxChars } = options
  /** Oldest use first: a Map keeps insertion order, and a use re-inserts. */
  const entries = new Map<string, Entry>()
  /** `<collection> <revision>` → the stamp new entries read at that revision join. */
  const stamps = new Map<string, Stamp>()
  const catchUps = new Map<Stamp, Promise<void>>()
  let chars = 0

  const idOf = (c: string, key: string) => `${c}\u0000${key}`
  function drop(id: string): void {
    const entry = entries.get(id)
    if (!entry) return
    entries.delete(id)
    chars -= entry.text.length
  }

  /** The entries of `stamp` brought to the collection's newest logged revision; all dropped when the log no longer reaches back to it. */
  async function advance(c: string, stamp: Stamp): Promise<void> {
    const from = stamp.token
    stamps.delete(`${c} ${from}`) // reads kept meanwhile get a stamp of their own, not carried forward
    const match = REVISION.exec(from)
    const rows = match ? await options.changesFrom(c, Number(match[1])) : []
    const first = rows[0]
    // The change that made `from` must still be logged with the same token (not trimmed, not another database's).
    if (!first || `${first.n}.${first.token}` !== from) {
      stamp.token = ''
      return
    }
    for (const row of rows.slice(1)) drop(idOf(c, row.key))
    const last = rows[rows.length - 1]!
    stamp.token = `${last.n}.${last.token}`
    if (!stamps.has(`${c} ${stamp.token}`)) stamps.set(`${c} ${stamp.token}`, stamp)
  }

  function catchUp(c: string, stamp: Stamp): Promise<void> {
    let running = catchUps.get(stamp)
    if (!running) {
      running = advance(c, stamp)
        .catch(() => {
          stamp.token = '' // the log could not be read: nothing of this stamp is trusted again
        })
        .finally(() => catchUps.delete(stamp))
      catchUps.set(stamp, running)
    }
    return running
  }

  return {
    async lookup(c, key, now) {
      const id = idOf(c, key)
      let entry = entries.get(id)
      if (!entry) return undefined
      if (entry.stamp.token !== now && entry.stamp.token !== '') {
        await catchUp(c, entry.stamp)
        entry = entries.get(id)
      }
      if (!entry || entry.stamp.token !== now) return undefined
      entries.delete(id)
      entries.set(id, entry)
      return entry.text
    },

    keep(c, key, text, at) {
      // A record larger than a 64th of the budget would push out many small ones (snapshot chunks).
      if (text.length * 64 > maxChars) return
      const id = idOf(c, key)
      drop(id)
      let stamp = stamps.get(`${c} ${at}`)
      if (!stamp) stamps.set(`${c} ${at}`, (stamp = { token: at }))
      entries.set(id, { text, stamp })
      chars += text.length
      for (const oldest of entries.keys()) {
        if (chars <= maxChars) break
        drop(oldest)
      }
      if (stamps.size > 1024) for (const [name, s] of stamps) if (s.token !== at) stamps.delete(name) // stamps no entry will join again
    },

    evict(c, key) {
      drop(idOf(c, key))
    },
  }
}
