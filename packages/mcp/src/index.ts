// @foundry/mcp: the foundry MCP server, its tool table and resources; the CLI is the `foundry` bin.
// Opening a project (finding it, reading .foundry/config.json, choosing adapters) is `@foundry/project`'s.
export { createServer, INSTRUCTIONS, type ServerOptions } from './server.js'
export { serveStdio, FoundryStdioTransport, MAX_MESSAGE_BYTES, READ_PAUSE_AT, READ_RESUME_AT, type ServeStdioOptions } from './stdio.js'
export { keepServing, onStopSignal, projectOpener, stderrLog, type ProjectOpener } from './lifecycle.js'
export { serveHttp, isLoopback, MCP_PATH, LOCAL, type HttpServeOptions, type HttpServer } from './http/serve.js'
export { serveFoundryHttp, authored, type ServeFoundryHttpOptions } from './http/foundry.js'
export { serveHttpUntilStopped, type HttpListenOptions, type ServeUntilStoppedOptions } from './http/until-stopped.js'
export { loadTokens, createToken, listTokens, parseRoles, tokenFile, ROLES, type Role, type Principal, type TokenRecord, type TokenStore } from './http/tokens.js'
export { TOOL_ROLES, grants, mayCall, guardTransport, type ToolCallRecord } from './http/auth.js'
export { TOOLS, type FoundryTool, type ToolResult, type ToolName, type ToolOutput } from './tools.js'
export { listTools, callTool } from './dispatch.js'
export { publishTools, type PublishableTool } from './publish-tools.js'
export { listResources, readResource, INDEX_URI, CONTRACTS_URI, RUNBOOK_PREFIX } from './resources.js'
export {
  SearchOutputSchema,
  WriteOutputSchema,
  ForgetOutputSchema,
  IndexOutputSchema,
  RunbookListOutputSchema,
  RunbookGetOutputSchema,
  ValidateOutputSchema,
  BlackboardWriteOutputSchema,
  BlackboardReadOutputSchema,
  TokenReportOutputSchema,
  type IndexFigures,
  type SearchOutput,
  type WriteOutput,
  type ForgetOutput,
  type IndexOutput,
  type RunbookListOutput,
  type RunbookGetOutput,
  type ValidateOutput,
  type BlackboardWriteOutput,
  type BlackboardReadOutput,
  type TokenReportOutput,
} from './output-schemas.js'
