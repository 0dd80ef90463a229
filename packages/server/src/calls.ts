// @foundry/server/calls: a tool table's `tools/call` without the SDK's Server, for a stdio bin that
// answers a session's first calls while the Server loads (and builds the Server on the same calls).
export { toolCalls } from './tool-calls.js'
