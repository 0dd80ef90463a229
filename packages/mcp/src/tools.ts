// `foundry mcp` serves Foundry's kernel tools as the kernel declares them (@foundry/kernel/tools).
export {
  KERNEL_TOOLS as TOOLS,
  type KernelTool as FoundryTool,
  type ToolName,
  type ToolOutput,
  type ToolResult,
} from '@foundry/kernel/tools'
