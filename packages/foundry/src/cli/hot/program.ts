import { runAction } from '../context.js'
import type { HotCall } from './args.js'
import { listFacts } from './list.js'
import { searchFacts } from './search.js'

/**
 * The hot commands' program, `foundry-hot.cjs` (run through V8's code cache as the whole program is):
 * `foundry list` and `foundry search <query>` without commander and the other commands' modules. It
 * prints what the whole program prints for the same call, byte for byte.
 */
export function runHot(call: HotCall): Promise<void> {
  return runAction(call.globals, (ctx) =>
    call.command === 'list'
      ? listFacts(ctx, { status: 'active' }, call.globals.json === true)
      : searchFacts(ctx, call.query!, {}),
  )
}
