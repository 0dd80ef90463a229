import { Command } from 'commander'
import { action } from '../context.js'

/**
 * `foundry tokens`: the token accounting (the token_report tool's figures, laid out for a terminal),
 * with what the MCP server's `tools/list` costs every session counted in the index-first cost and the
 * break-even fact count; then, on a line of its own, that figure.
 */
export function tokensCommand(): Command {
  return new Command('tokens')
    .description(
      'Token accounting: what is always loaded, what is retrieved on demand, what eager loading would cost, and the MCP tool list',
    )
    .action(
      action(async (ctx) => {
        const [{ kernel }, { estimateTokens }, { listTools }] = await Promise.all([
          ctx.project(),
          import('@foundry/kernel'),
          import('@foundry/mcp'),
        ])
        // The `tools/list` result as the server sends it (JSON, no spaces): every session pays it.
        const tools = listTools()
        const toolsList = { tools: tools.length, tokens: estimateTokens(JSON.stringify({ tools })) }
        const { accounting, figures } = await kernel.tokens.report({
          sessionOverhead: { tokens: toolsList.tokens, what: 'MCP tool list' },
        })
        const line = `MCP tools/list: ~${toolsList.tokens} tokens for ${toolsList.tools} tools, in every session that loads the server.`
        return { text: `${accounting}\n${line}`, json: { ...figures, toolsList } }
      }),
    )
}
