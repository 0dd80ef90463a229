// @foundry/server: what Foundry's MCP servers share (`foundry mcp`, `marbles mcp`): one server built
// from a table of tool rows, HTTP serving and its tokens. Node only. Every public name
// is listed here; the stdio transport and the process lifecycle are on `@foundry/server/stdio`, the
// local token's path on `@foundry/server/runtime`, and the tool row itself (`ToolRow`) on `@foundry/kernel/tools`.
export { createToolServer } from './tool-server.js'
export type { ToolTasks } from './tool-tasks.js'
export { publishTools } from './publish-tools.js'
export { isLoopback } from './http/serve.js'
export { claimLocalToken, type LocalToken } from './http/local-token.js'
export { serveHttpUntilStopped } from './http/until-stopped.js'
export { loadTokens, secretTokens, parseRoles, type Principal } from './http/tokens.js'
export { tokenBook } from './http/token-book.js'
export { grants } from './http/auth.js'
