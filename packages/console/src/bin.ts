#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { errorMessage } from '@foundry/kernel'
import { locateProject } from '@foundry/project'
import { localTokenPath } from '@foundry/server/runtime'
import { serveConsole } from './serve.js'

const USAGE = `foundry-console [--root DIR] [--host 127.0.0.1] [--port 7413] [--token SECRET]

Serve Foundry's web console for the project at --root (default: found from here, like git).
--token SECRET  lets the console edit and forget facts with that secret (besides team tokens).
Without team tokens, on loopback, the console requires the user's local token (its file is named at
start; the address printed at a terminal carries it), so no other local user browses.`

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      root: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) return void console.log(USAGE)
  const port = values.port === undefined ? undefined : Number(values.port)
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
    throw new Error(`--port: a number from 0 to 65535, got ${values.port}`)
  const root = locateProject({ ...(values.root !== undefined && { root: values.root }), cwd: process.cwd() })
  // Without team tokens the console is the user's alone: it requires the user's local token (as foundry ui does).
  const server = await serveConsole({
    root,
    ...(values.host && { host: values.host }),
    ...(port !== undefined && { port }),
    ...(values.token && { token: values.token }),
    localToken: localTokenPath(),
  })
  const { local } = server
  console.log(`Foundry console: ${server.url}`)
  // The secret is shown only to a person at a terminal, in the one URL to open; a log gets where it is.
  if (local)
    console.log(
      process.stdout.isTTY
        ? `Foundry console: open ${server.url}#token=${local.secret}`
        : `Foundry console: enter the local token from ${local.file}`,
    )
  const stop = () => void server.close().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

main().catch((error: unknown) => {
  console.error(`foundry-console: ${errorMessage(error)}`)
  process.exit(1)
})
