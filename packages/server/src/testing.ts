// @foundry/server/testing: what the servers' tests share: an MCP server over raw stdio, one raw HTTP
// POST, and a protocol fuzzer built on the caller's fast-check.
export {
  startRawServer,
  initialized,
  toolCall,
  textOf,
  INITIALIZE,
} from './testing/raw-server.js'
export {
  fuzzMessages,
  fuzzServer,
  encodeMessage,
} from './testing/fuzz.js'
export { rawPost } from './testing/raw-http.js'
