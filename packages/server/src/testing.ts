// @foundry/server/testing: what the servers' tests share: an MCP server over raw stdio, one raw HTTP
// POST, and a protocol fuzzer built on the caller's fast-check.
export {
  startRawServer,
  initialized,
  toolCall,
  textOf,
  INITIALIZE,
  INITIALIZED,
  type RawServer,
  type RawServerOptions,
} from './testing/raw-server.js'
export {
  fuzzMessages,
  fuzzServer,
  encodeMessage,
  type FuzzMessage,
  type FuzzMessageOptions,
  type FuzzRunOptions,
  type FuzzRun,
} from './testing/fuzz.js'
export { rawPost } from './testing/raw-http.js'
