import { config } from 'zod/v4/core'

/**
 * zod compiles a parser for each object schema the first time it checks one (`new Function`: ~70 ms
 * of a new session's first messages, more than the rest of its first answer); a session checks a few
 * messages of each kind, which zod's interpreter does as well. zod reads this as a schema is built:
 * called before the SDK's schemas load. (A module of its own: the bin bundles `config` alone.)
 */
export function zodJitless(): void {
  config({ jitless: true })
}
