// @foundry/kernel/tools: Foundry's kernel calls as tool rows, protocol-agnostic (name, texts, TypeBox
// input and output, role, one call over a Kernel). `foundry mcp` serves them through @foundry/server;
// Marbles' AI SDK harness wraps some of them. No node: imports here either.
export { ROLES, checkTools, type Role, type ToolRow, type ToolResult, type ToolHints } from './tool-row.js'
export { KERNEL_TOOLS, type KernelTool, type ToolName, type ToolOutput } from './table.js'
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
} from './schemas.js'
