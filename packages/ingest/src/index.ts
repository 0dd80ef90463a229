// The public name of @foundry/ingest: one call.
export { ingest } from './ingest.js'
