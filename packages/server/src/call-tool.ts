import { errorMessage, isFoundryError, JSON_MAX_DEPTH, measureJson, validator, type Validator } from '@foundry/kernel'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ToolRow } from '@foundry/kernel/tools'

/** The arguments object and an artifact in it (`data`) nested `JSON_MAX_DEPTH` deep. */
export const ARGS_MAX_DEPTH = JSON_MAX_DEPTH + 1

/**
 * A tool table's `tools/call`. Every failure is a result with `isError: true`, never a JSON-RPC
 * error, so the model reads the message and can correct itself: an unknown tool names them all,
 * arguments that break the schema name the field, and a tool that throws answers
 * `<tool> failed: <message>` (a throw that is no FoundryError is ours: its stack goes to `log`).
 */
export function createToolCaller<C>(table: readonly ToolRow<C>[], log: (line: string) => void) {
  const byName = new Map(table.map((row) => [row.name, row]))
  const inputs = new Map<string, Validator<unknown>>()
  const inputOf = (row: ToolRow<C>) => {
    let check = inputs.get(row.name)
    if (!check) inputs.set(row.name, (check = validator(row.input)))
    return check
  }
  return async function callTool(
    context: () => Promise<C>,
    name: string,
    args: Record<string, unknown> | undefined,
  ): Promise<CallToolResult> {
    const row = byName.get(name)
    if (!row)
      return failure(`Unknown tool "${String(name).slice(0, 100)}". Available: ${table.map((t) => t.name).join(', ')}.`)
    // Before the schema (whose checks recurse): arguments nested past any tool's need are refused.
    if (measureJson(args ?? {}, Number.POSITIVE_INFINITY, ARGS_MAX_DEPTH).depth > ARGS_MAX_DEPTH)
      return failure(
        `${name} failed: Invalid arguments: nested more than ${ARGS_MAX_DEPTH} levels deep (an artifact at most ${JSON_MAX_DEPTH}); flatten them`,
      )
    try {
      const input = inputOf(row).parse(args ?? {}, 'arguments')
      const result = await row.call(await context(), input)
      return {
        content: [{ type: 'text', text: result.text }],
        ...(!row.textOnly && { structuredContent: result.structured as Record<string, unknown> }),
        ...(result.isError && { isError: true }),
      }
    } catch (error) {
      if (!isFoundryError(error)) log(`${name} failed: ${(error as Error)?.stack ?? errorMessage(error)}`)
      return failure(`${name} failed: ${errorMessage(error).split('\n')[0]}`)
    }
  }
}

/** A tool error result: the text is what the model reads. */
export function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}
