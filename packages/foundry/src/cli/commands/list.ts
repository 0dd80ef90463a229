import { Command, Option } from 'commander'
import { FACT_STATUSES, FACT_TYPES } from '../choices.js'
import { action } from '../context.js'
import { LIST_PAGE, listFacts, type ListOptions } from '../hot/list.js'
import { integer } from '../input.js'

/** `foundry list`: the facts of a status, one line each, in id order (`listFacts` says what it prints). */
export function listCommand(): Command {
  return new Command('list')
    .description(`List facts, one line each: active by default, the first ${LIST_PAGE} unless --limit or --all`)
    .addOption(new Option('--type <type>', 'only facts of this type').choices(FACT_TYPES))
    .addOption(new Option('--status <status>', 'which facts').choices(FACT_STATUSES).default('active'))
    .option('--limit <n>', `at most n facts (default ${LIST_PAGE}; --json: all)`, integer)
    .option('--all', 'every fact, however many')
    .action(
      action((ctx, options: ListOptions, command: Command) =>
        listFacts(ctx, options, command.optsWithGlobals<{ json?: boolean }>().json === true),
      ),
    )
}
