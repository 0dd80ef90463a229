#!/usr/bin/env node
import { createRequire } from 'node:module'

// `dist/bin/foundry-hook.js`, the path hook settings written for earlier builds name: it runs the bin,
// `foundry-hook.cjs` beside it (a CommonJS entry starts faster than an ES module).
createRequire(import.meta.url)('./foundry-hook.cjs')
