import { errorMessage, isFoundryError, JSON_MAX_DEPTH, measureJson, validator, type Kernel, type Validator } from '@foundry/kernel'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { publishTools } from './publish-tools.js'
import { TOOLS, type FoundryTool } from './tools.js'

const byName = new Map<string, FoundryTool>(TOOLS.map((t) => [t.name, t]))
const inputs = new Map<string, Validator<Record<string, unknown>>>()
/** The arguments object and an artifact in it (`data`) nested `JSON_MAX_DEPTH` deep. */
const ARGS_MAX_DEPTH = JSON_MAX_DEPTH + 1

/** `tools/list`: the table as the protocol publishes it. */
export function listTools(): Tool[] {
  return publishTools(TOOLS)
}

/**
 * `tools/call`. Every failure is a result with `isError: true`, never a JSON-RPC error, so the model
 * reads the message and can correct itself: an unknown tool names them all, arguments that break the
 * schema name the field, and a tool that throws answers `<tool> failed: <message>`.
 */
export async function callTool(
  kernel: () => Promise<Kernel>,
  name: string,
  args: Record<string, unknown> | undefined,
  log: (line: string) => void,
): Promise<CallToolResult> {
  const tool = byName.get(name)
  if (!tool) return failure(`Unknown tool "${String(name).slice(0, 100)}". Available: ${TOOLS.map((t) => t.name).join(', ')}.`)
  // Before the schema (whose checks recurse): arguments nested past any tool's need are refused.
  if (measureJson(args ?? {}, Number.POSITIVE_INFINITY, ARGS_MAX_DEPTH).depth > ARGS_MAX_DEPTH)
    return failure(`${name} failed: Invalid arguments: nested more than ${ARGS_MAX_DEPTH} levels deep (an artifact at most ${JSON_MAX_DEPTH}); flatten them`)
  try {
    const input = inputOf(tool).parse(args ?? {}, 'arguments')
    const result = await tool.call(await kernel(), input)
    return {
      content: [{ type: 'text', text: result.text }],
      ...(!tool.textOnly && { structuredContent: result.structured as Record<string, unknown> }),
      ...(result.isError && { isError: true }),
    }
  } catch (error) {
    // A FoundryError is the user's to fix; anything else is ours, so its stack goes to stderr.
    if (!isFoundryError(error)) log(`${name} failed: ${(error as Error)?.stack ?? errorMessage(error)}`)
    return failure(`${name} failed: ${errorMessage(error)}`)
  }
}

function inputOf(tool: FoundryTool): Validator<Record<string, unknown>> {
  let check = inputs.get(tool.name)
  if (!check) inputs.set(tool.name, (check = validator(tool.inputSchema) as Validator<Record<string, unknown>>))
  return check
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}
