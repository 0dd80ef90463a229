import { Command, Option } from 'commander'
import type { Confidence, FactType } from '@foundry/kernel'
import { action } from '../context.js'
import { CONFIDENCES, FACT_TYPES } from '../choices.js'
import { list, readText } from '../input.js'

interface WriteOptions {
  title: string
  body: string
  type: FactType
  scope?: string
  tags?: string[]
  confidence?: Confidence
  source?: string
  expires?: string
  supersedes?: string
  /** commander's `--no-supersede`: false refuses automatic superseding. */
  supersede?: boolean
}

/** `foundry write`: the memory_write tool. */
export function writeCommand(): Command {
  return new Command('write')
    .description(
      'Store one durable fact (memory_write): deduplicated, given an id, superseding an older fact that states the same thing with another value',
    )
    .requiredOption('--title <text>', 'the fact itself, not the topic (at most 80 characters)')
    .requiredOption(
      '--body <text>',
      'at most 120 words; `-` reads stdin. Decisions and risks include `Why:` and `How to apply:` lines',
    )
    .addOption(new Option('--type <type>', 'the kind of fact').choices(FACT_TYPES).makeOptionMandatory())
    .option('--scope <scope>', 'project | module:<name> | vertical:<name> (default project)')
    .option('--tags <list>', 'comma-separated tags', list)
    .addOption(new Option('--confidence <level>', 'default medium').choices(CONFIDENCES))
    .option('--source <source>', 'adr-0007 | conversation | code | external:<url> (default conversation)')
    .option('--expires <date>', 'YYYY-MM-DD after which the fact stops being loaded')
    .option('--supersedes <id>', 'supersede this fact explicitly (otherwise found by the same-statement rule)')
    .option('--no-supersede', 'never supersede automatically; close facts are still named as "similar"')
    .action(
      action(async (ctx, options: WriteOptions) => {
        const body = options.body === '-' ? await readText('-') : options.body
        const { supersede, ...rest } = options
        const result = await ctx.tool('memory_write', {
          ...rest,
          body,
          ...(supersede === false && { supersede: false }),
        })
        return { text: result.text, json: result.structured }
      }),
    )
}
