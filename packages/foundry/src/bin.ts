#!/usr/bin/env node
import { commandOf, runCachedScript } from '@foundry/project/cached-script'
import { plainMcpArgs } from './cli/mcp-args.js'

// A command runs the program from one script compiled through V8's code cache (`foundry-cli.cjs`, built
// from cli/program.ts), cached per command: `foundry list` and `foundry search` neither parse it nor compile
// what they ran before. A plain `foundry mcp` (stdio) runs its own script the same way (`foundry-mcp.cjs`,
// from mcp-stdio.ts: no commander, no command table, no HTTP serving): the server answers `initialize`
// from its first modules, and evaluates the rest (the SDK's Server, the kernel, the project) after, from
// compiled code. Any other `foundry mcp` line (`--http`, `--help`) loads the program as ES modules.
const args = process.argv.slice(2)
const command = commandOf(args, ['--root', '--storage'])
const plain = command === 'mcp' ? plainMcpArgs(args) : undefined
if (plain)
  await runCachedScript<typeof import('./mcp-stdio.js')>(new URL('./foundry-mcp.cjs', import.meta.url), 'mcp').serveMcp(
    plain,
  )
else {
  const { runCli } =
    command === 'mcp'
      ? await import('./cli/program.js')
      : runCachedScript<typeof import('./cli/program.js')>(new URL('./foundry-cli.cjs', import.meta.url), command)
  await runCli()
}
