// @foundry/mcp: the foundry MCP server over Foundry's kernel tools (`@foundry/kernel/tools`) and its
// resources; `serveStdio` is on `@foundry/mcp/stdio`, and the `foundry` bin is @foundry/cli's.
// Opening a project (finding it, reading .foundry/config.json, choosing adapters) is `@foundry/project`'s.
// The serving plumbing (transport, lifecycle, HTTP, tokens, tool rows) is `@foundry/server`'s.
export { createServer, listTools } from './server.js'
export { serveFoundryHttp } from './http/foundry.js'
