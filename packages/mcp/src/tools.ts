// `foundry mcp` serves Foundry's kernel tools as the kernel declares them (@foundry/kernel/tools).
export {
  KERNEL_TOOLS as TOOLS,
  type ToolName,
  type ToolOutput,
  type ToolResult,
} from '@foundry/kernel/tools'
