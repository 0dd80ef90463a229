import { HEAD_KEY, membersKey, stampOf, termsKey, type CatalogHead } from '../../memory/catalog-records.js'
import type { Storage } from '../../storage.js'
import { equal, ok } from '../expect.js'

/** What the write catalog in `storage` says, whatever its shard count: each term's ids, the active ids, the head's counts. */
export interface CatalogContent {
  active: number
  maxNumber: number
  expiring: Record<string, string>
  /** `<term hash> <ids, sorted>`, sorted. */
  postings: string[]
  /** Every active id the membership chunks list, sorted. */
  members: string[]
}

/** The catalog's records as its head names them, each checked to carry the stamp the head gives it. */
export async function catalogContent(storage: Storage): Promise<CatalogContent> {
  const text = await storage.get('meta', HEAD_KEY)
  ok(text !== undefined, 'the write catalog has a head')
  const head = JSON.parse(text!) as CatalogHead
  const record = async <T>(key: string, stamp: number): Promise<T> => {
    const value = JSON.parse((await storage.get('meta', key)) ?? 'null') as (T & { seq: number }) | null
    equal(value?.seq, stamp, `${key} is the record the head names`)
    return value!
  }
  const postings: string[] = []
  for (const [b, offset] of head.terms.entries()) {
    const stamp = stampOf(head, offset)
    if (stamp === undefined) continue
    const shard = await record<{ terms: Record<string, string[]> }>(termsKey(b), stamp)
    for (const [term, ids] of Object.entries(shard.terms)) postings.push(`${term} ${[...ids].sort().join(',')}`)
  }
  const members: string[] = []
  for (const [chunk, offset] of Object.entries(head.members)) {
    const found = await record<{ members: Record<string, number[]> }>(membersKey(Number(chunk)), stampOf(head, offset)!)
    members.push(...Object.keys(found.members))
  }
  return {
    active: head.active,
    maxNumber: head.maxNumber,
    expiring: head.expiring,
    postings: postings.sort(),
    members: members.sort(),
  }
}
