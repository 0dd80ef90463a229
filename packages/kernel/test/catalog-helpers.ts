// What the write-catalog tests share: a kernel on a ticking clock, stored facts by number, inputs, and
// a storage that counts full reads of the facts.
import { createKernel, type Fact, type Storage } from '../src/index.js'

let t = Date.parse('2026-11-30T12:00:00Z')
export const now = () => new Date((t += 1000))
/** What the next `now()` will give, without moving the clock. */
export const nextNow = () => new Date(t + 1000)
export const open = (storage: Storage) => createKernel({ storage, now, onProblem: () => {} })

export const fact = (n: number, title: string, extra: Partial<Fact> = {}): Fact => ({
  id: `fact-${String(n).padStart(4, '0')}`,
  title,
  body: `Body of ${title}.`,
  type: 'convention',
  scope: 'project',
  tags: [],
  confidence: 'medium',
  source: 'conversation',
  created: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
  status: 'active',
  ...extra,
})
export const input = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  body: `Body of ${title}.`,
  type: 'convention',
  ...extra,
})

/** A storage that counts full reads of the facts: a listing, or every key (then a page of facts at a time). */
export function counting(storage: Storage) {
  const counts = { lists: 0 }
  const wrapped: Storage = {
    ...storage,
    list: (collection, options) => {
      if (collection === 'facts') counts.lists++
      return storage.list(collection, options)
    },
    keys: (collection, prefix) => {
      if (collection === 'facts' && !prefix) counts.lists++
      return storage.keys(collection, prefix)
    },
  }
  return { storage: wrapped, counts }
}
