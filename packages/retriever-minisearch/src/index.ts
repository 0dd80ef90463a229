// @foundry/retriever-minisearch: the `minisearch` retrieval kind. The composition root
// (@foundry/project) registers the descriptor; a project opts in with `"retrieval": { "kind": "minisearch" }`.
export { minisearchRetriever } from './retriever.js'
export { minisearchDescriptor } from './descriptor.js'
