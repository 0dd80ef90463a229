// @foundry/server: what Foundry's MCP servers share (`foundry mcp`, `marbles mcp`): the tool row and
// one server built from a table of them, the stdio transport, the lifecycle, limits, HTTP serving
// and tokens. Node only. Every public name is listed here.
export { ROLES, checkTools, type Role, type ToolRow, type ToolResult, type ToolHints } from '@foundry/kernel/tools'
export { createToolServer, type ToolServerOptions, type ServerInfo, type ResourceTable } from './tool-server.js'
export { createToolCaller, failure, ARGS_MAX_DEPTH } from './call-tool.js'
export { publishTools } from './publish-tools.js'
export { FoundryStdioTransport, MAX_MESSAGE_BYTES, READ_PAUSE_AT, READ_RESUME_AT, type StdioTransportOptions } from './stdio-transport.js'
export { serveUntilClosed } from './serve-until-closed.js'
export { keepServing, onStopSignal, stderrLog, oneLine, type KeepServingOptions } from './lifecycle.js'
export { createLimiter, BusyError, MAX_RUNNING, MAX_WAITING } from './limit.js'
export { retrying } from './retrying.js'
export { serveHttp, isLoopback, MCP_PATH, MAX_BODY_BYTES, MAX_SESSIONS, SESSION_IDLE_MS, LOCAL, type HttpServeOptions, type HttpServer } from './http/serve.js'
export { httpLimits, DEFAULT_HTTP_LIMITS, type HttpLimits } from './http/limits.js'
export { serveHttpUntilStopped, type HttpListenOptions, type ServeUntilStoppedOptions } from './http/until-stopped.js'
export { claimLocalToken, type LocalToken } from './http/local-token.js'
export { loadTokens, secretTokens, createToken, listTokens, parseRoles, tokenFile, type Principal, type TokenRecord, type TokenStore } from './http/tokens.js'
export { grants, mayCall, guardTransport, type ToolCallRecord } from './http/auth.js'
