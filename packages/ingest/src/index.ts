// The public names of @foundry/ingest: one call, its options and its report, and the readers it is made of.
export { ingest, type IngestOptions, type IngestReport, type IngestStep } from './ingest.js'
export { parseAdr, type Adr, type AdrState } from './adr.js'
export { parseRules, instructionKind, type Rule } from './instructions.js'
