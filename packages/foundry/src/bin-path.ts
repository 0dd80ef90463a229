#!/usr/bin/env node
import { createRequire } from 'node:module'

// `dist/bin/foundry.js`, the path MCP client settings written for earlier builds name: it runs the bin,
// `foundry.cjs` beside it (a CommonJS entry starts faster than an ES module).
createRequire(import.meta.url)('./foundry.cjs')
