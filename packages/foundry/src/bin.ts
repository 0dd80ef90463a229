#!/usr/bin/env node
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { commandOf, runCachedScript } from '@foundry/project/cached-script'
import { hotCall } from './cli/hot/args.js'

// The `foundry` bin, built as CommonJS (`foundry.cjs`: Node starts it without its ES module loader).
// A command runs the program from one script compiled through V8's code cache (`foundry-cli.cjs`, built
// from cli/program.ts), cached per command: `foundry show` neither parses it nor compiles what it ran
// before. `foundry list` and `foundry search <query>` with only global options run a smaller script
// (`foundry-hot.cjs`, built from cli/hot/program.ts: no commander, no other command). `foundry mcp` imports
// the program as ES modules instead (`foundry-program.js` and its chunks): the server answers `initialize`
// from the first few, and loads the rest (the SDK's Server, the kernel) while the client waits for
// nothing; a long-lived server gains nothing from the cache.
async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const hot = hotCall(args)
  if (hot) {
    const { runHot } = runCachedScript<typeof import('./cli/hot/program.js')>(
      join(__dirname, 'foundry-hot.cjs'),
      hot.command,
    )
    return runHot(hot)
  }
  const command = commandOf(args, ['--root', '--storage'])
  const { runCli }: typeof import('./cli/program.js') =
    command === 'mcp'
      ? await import(pathToFileURL(join(__dirname, 'foundry-program.js')).href)
      : runCachedScript(join(__dirname, 'foundry-cli.cjs'), command)
  return runCli()
}

void main()
