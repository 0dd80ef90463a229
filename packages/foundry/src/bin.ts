#!/usr/bin/env node
import { commandOf, runCachedScript } from '@foundry/project/cached-script'
import { hotCall } from './cli/hot/args.js'

// A command runs the program from one script compiled through V8's code cache (`foundry-cli.cjs`, built
// from cli/program.ts), cached per command: `foundry show` neither parses it nor compiles what it ran
// before. `foundry list` and `foundry search <query>` with only global options run a smaller script
// (`foundry-hot.cjs`, built from cli/hot/program.ts: no commander, no other command). `foundry mcp` loads
// the program as ES modules instead: the server answers `initialize` from the first few, and loads the
// rest (the SDK's Server, the kernel) while the client waits for nothing; a long-lived server gains
// nothing from the cache.
const args = process.argv.slice(2)
const hot = hotCall(args)
if (hot) {
  const { runHot } = runCachedScript<typeof import('./cli/hot/program.js')>(
    new URL('./foundry-hot.cjs', import.meta.url),
    hot.command,
  )
  await runHot(hot)
} else {
  const command = commandOf(args, ['--root', '--storage'])
  const { runCli } =
    command === 'mcp'
      ? await import('./cli/program.js')
      : runCachedScript<typeof import('./cli/program.js')>(new URL('./foundry-cli.cjs', import.meta.url), command)
  await runCli()
}
