// @foundry/server: what Foundry's MCP servers share (`foundry mcp`, `marbles mcp`): the tool row and
// one server built from a table of them, HTTP serving and its tokens. Node only. Every public name
// is listed here; the stdio transport and the process lifecycle are on `@foundry/server/stdio`.
export type { ToolRow, ToolResult } from '@foundry/kernel/tools'
export { createToolServer } from './tool-server.js'
export type { ToolTasks } from './tool-tasks.js'
export { publishTools } from './publish-tools.js'
export type { HttpServeOptions } from './http/serve.js'
export { isLoopback } from './http/serve.js'
export { claimLocalToken, type LocalToken } from './http/local-token.js'
export { localTokenPath } from './runtime-dir.js'
export { serveHttpUntilStopped, type HttpListenOptions } from './http/until-stopped.js'
export { loadTokens, secretTokens, parseRoles, type Principal, type TokenStore } from './http/tokens.js'
export { tokenBook, type TokenBook } from './http/token-book.js'
export { grants } from './http/auth.js'
