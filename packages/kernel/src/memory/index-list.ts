import type { Fact } from '../schema/fact.js'
import type { CatalogDraft } from './catalog-draft.js'
import { indexEntryOf, type CatalogHead, type IndexList } from './catalog-records.js'
import { renderIndex, type MemoryIndex } from './index-file.js'

/**
 * Lines kept past the last one INDEX.md lists: removals and expiries use them up before the list
 * has to be read again from every fact.
 */
export const INDEX_MARGIN = 64

/** Active facts on `today` by the head: status active, less those past their `expires`. */
export function activeOn(head: Pick<CatalogHead, 'active' | 'expiring'>, today: string): number {
  let expired = 0
  for (const date of Object.values(head.expiring)) if (date < today) expired++
  return head.active - expired
}

/** The first facts of `ordered` (active ones in index order) as the catalog keeps them: those INDEX.md lists and a margin. */
export function indexListOf(ordered: readonly Fact[], total: number, budget: number, today: string): IndexList {
  const { listed } = renderIndex(ordered, total, budget, today)
  return trimmed({ seq: 0, complete: true, entries: ordered.map(indexEntryOf) }, listed, today)
}

/** The list cut to `listed` lines (counting only facts not yet expired) and the margin; complete while nothing was cut. */
function trimmed(list: IndexList, listed: number, today: string): IndexList {
  let shown = 0
  let end = 0
  while (end < list.entries.length && shown < listed + INDEX_MARGIN) {
    const e = list.entries[end++]!
    if (e.expires === undefined || e.expires >= today) shown++
  }
  if (end >= list.entries.length) return list
  return { seq: list.seq, complete: false, entries: list.entries.slice(0, end) }
}

/**
 * INDEX.md from the draft's kept list. When removals or expiries drained the margin (the list is a
 * prefix and all of it fits the budget), the list is read again from every active fact (`readAll`);
 * when it grew far past what is listed, it is cut back.
 */
export async function indexOfDraft(
  draft: CatalogDraft,
  budget: number,
  today: string,
  readAll: () => Promise<Fact[]>,
): Promise<MemoryIndex> {
  const total = activeOn(draft.head, today)
  let list = await draft.list().catch(() => undefined)
  if (!list) {
    // A stale list record: read again from every fact.
    list = indexListOf(await readAll(), total, budget, today)
    draft.setList(list)
  }
  let rendered = renderIndex(list.entries, total, budget, today)
  if (!list.complete && rendered.exhausted) {
    list = indexListOf(await readAll(), total, budget, today)
    draft.setList(list)
    rendered = renderIndex(list.entries, total, budget, today)
  } else if (list.entries.length > rendered.listed + 3 * INDEX_MARGIN) {
    const cut = trimmed(list, rendered.listed, today)
    if (cut !== list) draft.setList(cut)
  }
  const { exhausted: _exhausted, ...index } = rendered
  return index
}
