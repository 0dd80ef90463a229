import { Command } from 'commander'
import { action } from '../context.js'

/**
 * `foundry tokens`: seed 004's accounting (the token_report tool's figures, laid out for a terminal),
 * then, on a line of its own, what the MCP server's `tools/list` costs every session that loads it.
 */
export function tokensCommand(): Command {
  return new Command('tokens')
    .description('Token accounting: what is always loaded, what is retrieved on demand, what eager loading would cost, and the MCP tool list')
    .action(
      action(async (ctx) => {
        const [{ kernel }, { estimateTokens }, { listTools }] = await Promise.all([ctx.project(), import('@foundry/kernel'), import('@foundry/mcp')])
        const { accounting, figures } = await kernel.tokens.report()
        // The `tools/list` result as the server sends it (JSON, no spaces).
        const tools = listTools()
        const toolsList = { tools: tools.length, tokens: estimateTokens(JSON.stringify({ tools })) }
        const line = `MCP tools/list: ~${toolsList.tokens} tokens for ${toolsList.tools} tools, in every session that loads the server.`
        return { text: `${accounting}\n${line}`, json: { ...figures, toolsList } }
      }),
    )
}
