import { Command } from 'commander'
import { action } from '../context.js'
import { integer, readJsonObject } from '../input.js'

/**
 * `foundry blackboard read|write`: the blackboard_read and blackboard_write tools. A write over the
 * same agent and wave says "Replaced …" and keeps the earlier artifact; `read --agent <a> --at <n>`
 * reads version n back (the tool's `version`: `--version` is the program's own flag).
 */
export function blackboardCommand(): Command {
  const read = new Command('read')
    .description('Summaries of the artifacts of a wave (blackboard_read)')
    .argument('<wave>', 'the wave id')
    .option('--agent <name>', 'only this producer')
    .option('--full', 'print whole artifacts instead of summaries')
    .option(
      '--at <version>',
      "with --agent: that agent's artifact at this version (1 = first written), kept when a write replaced it",
      integer,
    )
    .action(
      action(async (ctx, wave: string, { at, ...options }: { agent?: string; full?: boolean; at?: number }) => {
        if (at !== undefined && options.agent === undefined)
          throw new Error(
            '--at needs --agent: versions are kept per agent; name the agent whose earlier artifact you want',
          )
        const result = await ctx.tool('blackboard_read', { wave, ...options, ...(at !== undefined && { version: at }) })
        return { text: result.text, json: result.structured }
      }),
    )
  const write = new Command('write')
    .description(
      'Write a wave artifact, validated against its contract (blackboard_write); over an existing one it says "Replaced" and keeps the earlier version; exits 1 when rejected',
    )
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
