import * as Type from 'typebox/type'
import { defineRetriever } from '../adapter.js'
import { bm25Retriever } from './retriever.js'

/** `"retrieval": { "kind": "bm25" }`: BM25 over typed arrays in memory, snapshotted into the storage when idle. */
export const bm25Descriptor = defineRetriever({
  kind: 'bm25',
  description:
    'BM25 over typed arrays in memory (the MiniSearch retriever’s scores and matching, or the Postgres retriever’s ranking), snapshotted into the storage when idle',
  options: Type.Object(
    {
      analysis: Type.Optional(
        Type.Union([Type.Literal('default'), Type.Literal('english')], {
          description:
            "How text becomes terms: default (segmented words, Porter stems) or english (PostgreSQL's to_tsvector('english') terms: its stop words, Snowball stems)",
        }),
      ),
      ranking: Type.Optional(
        Type.Union([Type.Literal('minisearch'), Type.Literal('postgres')], {
          description:
            "How terms score: minisearch (per-field BM25, the MiniSearch retriever's scores) or postgres (one BM25 of title- and tag-weighted term frequencies, the Postgres retriever's scores)",
        }),
      ),
      prefixMinLength: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 50,
          description: 'Prefix-match unknown query words this long or longer; 0 turns it off',
        }),
      ),
      fuzzy: Type.Optional(
        Type.Number({
          minimum: 0,
          maximum: 0.5,
          description: 'Edit distance for unknown words, as a fraction of their length; 0 turns it off',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  open: (options) => bm25Retriever(options),
})
