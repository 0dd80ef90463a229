#!/usr/bin/env node
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { commandOf, runCachedScript } from '@foundry/project/cached-script'
import { hotCall } from './cli/hot/args.js'
import { plainMcpArgs } from './cli/mcp-args.js'

// The `foundry` bin, built as CommonJS (`foundry.cjs`: Node starts it without its ES module loader).
// A command runs the program from one script compiled through V8's code cache (`foundry-cli.cjs`, built
// from cli/program.ts), cached per command: `foundry show` neither parses it nor compiles what it ran
// before. `foundry list` and `foundry search <query>` with only global options run a smaller script
// (`foundry-hot.cjs`, built from cli/hot/program.ts: no commander, no other command). A plain `foundry mcp`
// (stdio) runs its own script the same way (`foundry-mcp.cjs`, from mcp-stdio.ts: no commander, no command
// table, no HTTP serving): the server answers `initialize` from its first modules, and evaluates the rest
// (the SDK's Server, the kernel, the project) after, from compiled code. Any other `foundry mcp` line
// (`--http`, `--help`) imports the program as ES modules (`foundry-program.js` and its chunks).
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
  const plain = command === 'mcp' ? plainMcpArgs(args) : undefined
  if (plain)
    return runCachedScript<typeof import('./mcp-stdio.js')>(join(__dirname, 'foundry-mcp.cjs'), 'mcp').serveMcp(plain)
  const { runCli }: typeof import('./cli/program.js') =
    command === 'mcp'
      ? await import(pathToFileURL(join(__dirname, 'foundry-program.js')).href)
      : runCachedScript(join(__dirname, 'foundry-cli.cjs'), command)
  return runCli()
}

void main()
