#!/usr/bin/env node
// Install the workspace on a machine that has only Node 20 and npm: the pinned pnpm comes through npx,
// and native modules (better-sqlite3) build against the headers installed beside this Node.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'

const env = { ...process.env }
const prefix = dirname(dirname(process.execPath))
if (!env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node.h'))) env.npm_config_nodedir = prefix

const frozen = process.argv.includes('--no-frozen') ? [] : ['--frozen-lockfile']
const result = spawnSync('npx', ['-y', 'pnpm@12.4.2', 'install', ...frozen], { stdio: 'inherit', env })
process.exit(result.status ?? 1)
