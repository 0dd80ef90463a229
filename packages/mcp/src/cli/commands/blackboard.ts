import { Command } from 'commander'
import { action } from '../context.js'
import { readJsonObject } from '../input.js'

/** `foundry blackboard read|write`: the blackboard_read and blackboard_write tools. */
export function blackboardCommand(): Command {
  const read = new Command('read')
    .description('Summaries of the artifacts of a wave (blackboard_read)')
    .argument('<wave>', 'the wave id')
    .option('--agent <name>', 'only this producer')
    .option('--full', 'print whole artifacts instead of summaries')
    .action(
      action(async (ctx, wave: string, options: { agent?: string; full?: boolean }) => {
        const result = await ctx.tool('blackboard_read', { wave, ...options })
        return { text: result.text, json: result.structured }
      }),
    )
  const write = new Command('write')
    .description('Write a wave artifact, validated against its contract (blackboard_write); exits 1 when rejected')
    .argument('<wave>', 'the wave id')
    .argument('<agent>', 'the producing agent')
    .argument('<schema>', 'the contract id the artifact conforms to')
    .argument('[file]', 'the artifact; `-` or nothing reads stdin')
    .action(
      action(async (ctx, wave: string, agent: string, schema: string, file: string | undefined) => {
        const data = await readJsonObject(file)
        const result = await ctx.tool('blackboard_write', { wave, agent, schema, data })
        return { text: result.text, json: result.structured, exitCode: result.structured.written ? 0 : 1 }
      }),
    )
  return new Command('blackboard').description('Read or write wave artifacts').addCommand(read).addCommand(write)
}
