// @foundry/mcp: the foundry MCP server, its tool table and resources; the `foundry` bin is @foundry/cli's.
// Opening a project (finding it, reading .foundry/config.json, choosing adapters) is `@foundry/project`'s.
// The serving plumbing (transport, lifecycle, HTTP, tokens, tool rows) is `@foundry/server`'s.
export { createServer, listTools, INSTRUCTIONS, type ServerOptions } from './server.js'
export { serveStdio, type ServeStdioOptions } from './stdio.js'
export { projectOpener, type ProjectOpener, type BesideService } from './project-opener.js'
export { serveFoundryHttp, authored, type ServeFoundryHttpOptions } from './http/foundry.js'
export { TOOLS, type FoundryTool, type ToolResult, type ToolName, type ToolOutput } from './tools.js'
export { listResources, readResource, INDEX_URI, CONTRACTS_URI, RUNBOOK_PREFIX } from './resources.js'
// The tools' input and output schemas are the kernel's: `@foundry/kernel/tools`.
