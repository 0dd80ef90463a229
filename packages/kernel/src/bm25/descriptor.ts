import { defineRetriever } from '../adapter.js'
import { bm25Retriever, type Bm25RetrieverOptions } from './retriever.js'

/** JSON Schema (a plain object: opening a project never builds a schema, nor loads TypeBox). */
const BM25_OPTIONS = {
  type: 'object',
  properties: {
    analysis: {
      anyOf: [
        { type: 'string', const: 'default' },
        { type: 'string', const: 'english' },
      ],
      description:
        "How text becomes terms: default (segmented words, Porter stems) or english (PostgreSQL's to_tsvector('english') terms: its stop words, Snowball stems)",
    },
    ranking: {
      anyOf: [
        { type: 'string', const: 'minisearch' },
        { type: 'string', const: 'postgres' },
      ],
      description:
        "How terms score: minisearch (per-field BM25, the MiniSearch retriever's scores) or postgres (one BM25 of title- and tag-weighted term frequencies, the Postgres retriever's scores)",
    },
    prefixMinLength: {
      type: 'integer',
      minimum: 0,
      maximum: 50,
      description: 'Prefix-match unknown query words this long or longer; 0 turns it off',
    },
    fuzzy: {
      type: 'number',
      minimum: 0,
      maximum: 0.5,
      description: 'Edit distance for unknown words, as a fraction of their length; 0 turns it off',
    },
  },
  additionalProperties: false,
} as const

/** `"retrieval": { "kind": "bm25" }`: BM25 over typed arrays in memory, snapshotted into the storage when idle. */
export const bm25Descriptor = defineRetriever({
  kind: 'bm25',
  description:
    'BM25 over typed arrays in memory (the MiniSearch retriever’s scores and matching, or the Postgres retriever’s ranking), snapshotted into the storage when idle',
  options: BM25_OPTIONS,
  open: (options: Bm25RetrieverOptions) => bm25Retriever(options),
})
