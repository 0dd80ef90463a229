#!/usr/bin/env node
import { runCli } from './cli/program.js'

await runCli()
// Unref'd timers and closed handles let the process end by itself; a workflow's stray work does not keep it.
process.exit(process.exitCode ?? 0)
