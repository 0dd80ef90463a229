#!/usr/bin/env node
import { commandOf, runCachedScript } from '@foundry/project/cached-script'

// A command runs the program from one script compiled through V8's code cache (`marbles-cli.cjs`, built
// from cli/program.ts), cached per command. A plain `marbles mcp` (stdio) loads neither: its server is a
// few ES module chunks that answer `initialize` first and load the rest after, with no commander or
// command table before them; any other `marbles mcp` line (`--http`, `--help`) goes through the program,
// as ES modules (a long-lived server gains nothing from the cache).
// stdout carries a command's answer only (a run id, JSON, the MCP messages): what workspace modules
// and workflow bodies print with console.log, info or debug goes to stderr.
console.log = console.info = console.debug = console.error
const args = process.argv.slice(2)
const command = commandOf(args, ['--root', '--source', '--state', '--artifacts'])
const mcp = command === 'mcp' ? await import('./cli/mcp-stdio.js') : undefined
const plain = mcp?.plainMcpArgs(args)
if (mcp && plain) await mcp.serveMcpStdio(plain.global, { harness: plain.harness })
else {
  const { runCli } =
    command === 'mcp'
      ? await import('./cli/program.js')
      : runCachedScript<typeof import('./cli/program.js')>(new URL('./marbles-cli.cjs', import.meta.url), command)
  await runCli()
}
// Unref'd timers and closed handles let the process end by itself; a workflow's stray work does not keep it.
// What stdout and stderr still hold is written first: a pipe the reader drains slowly (or a small one,
// as Linux gives once a user holds many) queues writes, and exiting would cut the output short.
await Promise.all([process.stdout, process.stderr].map((out) => new Promise((done) => out.write('', done))))
process.exit(process.exitCode ?? 0)
