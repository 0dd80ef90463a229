#!/usr/bin/env node
import { commandOf, runCachedScript } from '@foundry/project/cached-script'

// The program is one script compiled through V8's code cache (`foundry-cli.cjs`, built from
// cli/program.ts), cached per command: `foundry list` and `foundry mcp` run different functions.
const command = commandOf(process.argv.slice(2), ['--root', '--storage'])
const { runCli } = runCachedScript<typeof import('./cli/program.js')>(new URL('./foundry-cli.cjs', import.meta.url), command)
await runCli()
