import { Command, Option } from 'commander'
import { FACT_TYPES } from '../choices.js'
import { action } from '../context.js'
import { searchFacts, type SearchOptions } from '../hot/search.js'
import { integer } from '../input.js'

/** `foundry search`: the memory_search tool. */
export function searchCommand(): Command {
  return new Command('search')
    .description('Search project memory (memory_search): the matching facts, best first')
    .argument('<query>', 'keywords describing what you need to know')
    .addOption(new Option('--type <type>', 'only facts of this type').choices(FACT_TYPES))
    .option('--scope <scope>', 'only facts of this scope, e.g. module:billing')
    .option('--limit <n>', '1-25 (default memoryRetrieval.maxFacts, 8)', integer)
    .action(action((ctx, query: string, options: SearchOptions) => searchFacts(ctx, query, options)))
}
