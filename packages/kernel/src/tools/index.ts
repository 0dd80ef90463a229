// @foundry/kernel/tools: Foundry's kernel calls as tool rows, protocol-agnostic (name, texts, TypeBox
// input and output, role, one call over a Kernel). `foundry mcp` serves them through @foundry/server;
// Marbles' AI SDK harness wraps some of them. No node: imports here either. A tool's output schema
// is its row's `output`, and its type `ToolOutput<name>`.
export { ROLES, checkTools, type Role, type ToolRow, type ToolResult } from './tool-row.js'
export { KERNEL_TOOLS, type ToolName, type ToolOutput } from './table.js'
