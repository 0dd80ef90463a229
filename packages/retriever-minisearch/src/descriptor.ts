import { Type } from 'typebox'
import { defineRetriever } from '@foundry/kernel/adapter'
import { minisearchRetriever } from './retriever.js'

/** `"retrieval": { "kind": "minisearch" }`: the default, kept in memory and snapshotted into the storage. */
export const minisearchDescriptor = defineRetriever({
  kind: 'minisearch',
  description: 'MiniSearch BM25 in memory, snapshotted into the storage',
  options: Type.Object(
    {
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
  open: (options) => minisearchRetriever(options),
})
