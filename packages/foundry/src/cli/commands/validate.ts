import { Command } from 'commander'
import { action } from '../context.js'
import { readJsonObject } from '../input.js'

/** `foundry validate`: the contract_validate tool, on a file or stdin. Exit 1 when the artifact is invalid. */
export function validateCommand(): Command {
  return new Command('validate')
    .description('Validate a JSON artifact against a contract (contract_validate); exits 1 when it is invalid')
    .argument('<schema>', 'the contract id, e.g. finding.v1')
    .argument('[file]', 'the artifact; `-` or nothing reads stdin')
    .action(
      action(async (ctx, schema: string, file: string | undefined) => {
        const data = await readJsonObject(file)
        const result = await ctx.tool('contract_validate', { schema, data })
        return { text: result.text, json: result.structured, exitCode: result.structured.valid ? 0 : 1 }
      }),
    )
}
