import { processTerm, segmentWords, type RetrievalDoc, type RetrievalHit } from '@foundry/kernel/adapter'

/** The default retriever's cut: segmented words, split at spaces and punctuation, stop words dropped, Porter stems. */
export function terms(text: string): string[] {
  const out: string[] = []
  for (const word of segmentWords(text).split(/[\n\r\p{Z}\p{P}]+/u)) {
    const term = word && processTerm(word)
    if (term) out.push(term)
  }
  return out
}

/**
 * The same-run baseline of the retrieval suite: plain BM25 (k 0.9, b 0.4) over title, tags and body
 * as one text, in flat typed arrays (postings of a term contiguous), scoring every posting of every
 * query word. No prefix, typo or filter support: the least work a BM25 answer takes.
 */
export function flatBm25(docs: RetrievalDoc[], k = 0.9, b = 0.4) {
  const dictionary = new Map<string, number>()
  const perDoc = docs.map((d) => {
    const tf = new Map<number, number>()
    for (const t of terms(`${d.title}\n${d.tags.join(' ')}\n${d.body}`)) {
      let id = dictionary.get(t)
      if (id === undefined) dictionary.set(t, (id = dictionary.size))
      tf.set(id, (tf.get(id) ?? 0) + 1)
    }
    return tf
  })
  const start = new Uint32Array(dictionary.size + 1)
  for (const tf of perDoc) for (const id of tf.keys()) start[id + 1]!++
  for (let i = 0; i < dictionary.size; i++) start[i + 1]! += start[i]!
  const postDoc = new Uint32Array(start[dictionary.size]!)
  const postTf = new Uint16Array(postDoc.length)
  const fill = start.slice(0, dictionary.size)
  const length = new Float64Array(docs.length)
  perDoc.forEach((tf, d) => {
    for (const [id, n] of tf) (postDoc[fill[id]!] = d), (postTf[fill[id]!++] = n), (length[d]! += n)
  })
  const avg = length.reduce((a, v) => a + v, 0) / docs.length
  const norm = length.map((l) => k * (1 - b + (b * l) / avg))
  const acc = new Float64Array(docs.length)
  return {
    bytes: start.byteLength + postDoc.byteLength + postTf.byteLength + norm.byteLength + acc.byteLength,
    search(text: string, limit: number): RetrievalHit[] {
      const touched: number[] = []
      for (const t of terms(text)) {
        const id = dictionary.get(t)
        if (id === undefined) continue
        const df = start[id + 1]! - start[id]!
        const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5))
        for (let i = start[id]!; i < start[id + 1]!; i++) {
          const d = postDoc[i]!
          const f = postTf[i]!
          if (acc[d] === 0) touched.push(d)
          acc[d]! += (idf * f * (k + 1)) / (f + norm[d]!)
        }
      }
      const top: number[] = []
      for (const d of touched) {
        if (top.length < limit || acc[d]! > acc[top[top.length - 1]!]!) {
          let at = Math.min(top.length, limit - 1)
          while (at > 0 && acc[d]! > acc[top[at - 1]!]!) at--
          top.splice(at, 0, d)
          if (top.length > limit) top.pop()
        }
      }
      const hits = top.map((d) => ({ id: docs[d]!.id, score: acc[d]! }))
      for (const d of touched) acc[d] = 0
      return hits
    },
  }
}
