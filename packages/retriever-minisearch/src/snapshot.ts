import type { AsPlainObject } from 'minisearch'
import type { SnapshotStore } from '@foundry/kernel/adapter'

/**
 * The snapshot format: a small `head` naming a build, and the build's parts: `docs` (document ids,
 * field lengths, stored fields), `terms` (the sorted dictionary) and `s<i>` shards holding the
 * postings of the terms that hash to `i`. A new process reads `head`, `docs` and `terms`, then only
 * the shards its query needs; parts are written before the head, so a head never names a build
 * that is not complete. The format names the analyzer too: /4 splits text written without spaces
 * into words (`segmentWords`), so a /3 snapshot, whose terms were cut by spaces only, is not read
 * (`readHead` answers undefined) and the kernel indexes again.
 */
export const FORMAT = 'foundry-minisearch/4'

export interface Head {
  format: string
  build: string
  revision: string
  shards: number
}

export type Docs = Omit<AsPlainObject, 'index'>
export type Posting = AsPlainObject['index'][number]

export function shardOf(term: string, shards: number): number {
  let h = 0x811c9dc5
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193)
  return (h >>> 0) % shards
}

/** About 256 terms a shard, between 1 and 256 shards. */
export function shardCount(terms: number): number {
  let n = 1
  while (n < 256 && terms / n > 256) n *= 2
  return n
}

export const part = (build: string, name: string) => `${build}/${name}`

export async function readHead(store: SnapshotStore): Promise<Head | undefined> {
  const text = await store.read('head')
  if (!text) return undefined
  try {
    const head = JSON.parse(text) as Head
    return head.format === FORMAT &&
      typeof head.build === 'string' &&
      typeof head.revision === 'string' &&
      head.shards > 0
      ? head
      : undefined
  } catch {
    return undefined
  }
}

/** Write a whole index as a new build, then point the head at it, then drop the build it replaces. */
export async function writeSnapshot(
  store: SnapshotStore,
  index: AsPlainObject,
  revision: string,
  replaces: Head | undefined,
): Promise<Head> {
  const { index: postings, ...docs } = index
  const shards = shardCount(postings.length)
  const build = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  const buckets: Posting[][] = Array.from({ length: shards }, () => [])
  for (const entry of postings) buckets[shardOf(entry[0], shards)]!.push(entry)
  await store.write(part(build, 'docs'), JSON.stringify(docs))
  await store.write(
    part(build, 'terms'),
    postings
      .map((e) => e[0])
      .sort()
      .join('\n'),
  )
  for (const [i, bucket] of buckets.entries()) await store.write(part(build, `s${i}`), JSON.stringify(bucket))
  const head: Head = { format: FORMAT, build, revision, shards }
  await store.write('head', JSON.stringify(head))
  if (replaces && replaces.build !== build) await removeBuild(store, replaces)
  return head
}

export async function removeBuild(store: SnapshotStore, head: Head): Promise<void> {
  // Another process may still read the old build, or have removed it already: best effort.
  try {
    await store.remove(part(head.build, 'docs'))
    await store.remove(part(head.build, 'terms'))
    for (let i = 0; i < head.shards; i++) await store.remove(part(head.build, `s${i}`))
  } catch {
    // an orphaned cache file costs disk, not correctness
  }
}
