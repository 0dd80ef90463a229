#!/usr/bin/env node
import { commandOf, runCachedScript } from '@foundry/project/cached-script'

// A command runs the program from one script compiled through V8's code cache (`foundry-cli.cjs`, built
// from cli/program.ts), cached per command: `foundry list` and `foundry search` neither parse it nor compile
// what they ran before. `foundry mcp` loads the program as ES modules instead: the server answers
// `initialize` from the first few, and loads the rest (the SDK's Server, the kernel) while the client waits
// for nothing; a long-lived server gains nothing from the cache.
const command = commandOf(process.argv.slice(2), ['--root', '--storage'])
const { runCli } =
  command === 'mcp'
    ? await import('./cli/program.js')
    : runCachedScript<typeof import('./cli/program.js')>(new URL('./foundry-cli.cjs', import.meta.url), command)
await runCli()
