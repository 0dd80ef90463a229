// `pnpm bench [--data DIR] [--quick] [--only a,b] [--peers] [--before DIR] [--servers N --clients M --seconds S]`: run the suites and print the figures table.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { BenchContext, Suite } from './lib/context.js'
import { renderTable, type Figure } from './lib/table.js'
import { batchSuite } from './suites/batch.js'
import { floorSuite } from './suites/floor.js'
import { coldSuite } from './suites/cold.js'
import { consoleSuite } from './suites/console.js'
import { fsSuite } from './suites/fs.js'
import { hooksSuite } from './suites/hooks.js'
import { ingestSuite } from './suites/ingest.js'
import { kernelSuite } from './suites/kernel.js'
import { marblesSuite } from './suites/marbles.js'
import { marblesPostgresSuite } from './suites/marbles-postgres.js'
import { mcpSuite } from './suites/mcp.js'
import { openSuite } from './suites/open.js'
import { retrievalSuite } from './suites/retrieval.js'
import { peersSuite } from './suites/peers.js'
import { postgresSuite } from './suites/postgres.js'
import { postgresRetrievalSuite } from './suites/postgres-retrieval.js'
import { postgresScaleSuite } from './suites/postgres-scale.js'
import { scifactSuite } from './suites/scifact.js'
import { serverRssSuite } from './suites/server-rss.js'
import { serverRssScaleSuite } from './suites/server-rss-scale.js'
import { sqliteSuite } from './suites/sqlite.js'
import { tailsSuite } from './suites/tails.js'
import { teamSuite } from './suites/team.js'

const SUITES: Suite[] = [
  kernelSuite,
  scifactSuite,
  retrievalSuite,
  floorSuite,
  fsSuite,
  sqliteSuite,
  postgresSuite,
  postgresRetrievalSuite,
  postgresScaleSuite,
  mcpSuite,
  consoleSuite,
  hooksSuite,
  coldSuite,
  ingestSuite,
  marblesSuite,
  marblesPostgresSuite,
  peersSuite,
  batchSuite,
  tailsSuite,
  openSuite,
  serverRssSuite,
  serverRssScaleSuite,
  teamSuite,
]
/** Suites run only when asked for: `--peers` (the published peers side by side, dev dependencies) or `--only` (peers, batch, tails, `open`, `server-rss`, `server-rss-scale` and `postgres-scale`: minutes, 100k facts twice, and `team`: a minute of load on several servers). */
const OPT_IN = new Set(['peers', 'batch', 'tails', 'open', 'server-rss', 'server-rss-scale', 'postgres-scale', 'team'])

const { values } = parseArgs({
  // `pnpm bench -- --quick` forwards the `--` itself.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    data: { type: 'string', default: resolve(import.meta.dirname, '../../shared/eval-data') },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    peers: { type: 'boolean', default: false },
    before: { type: 'string' },
    servers: { type: 'string' },
    clients: { type: 'string' },
    seconds: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
})
if (values.help) {
  console.log(
    `Usage: pnpm bench [--data DIR] [--quick] [--only ${SUITES.map((s) => s.name).join(',')}] [--peers] [--before DIR] [--servers N] [--clients M] [--seconds S]\n`,
  )
  console.log('  --servers, --clients, --seconds shape the team suite (default 3 × 16 × 60 s)\n')
  for (const s of SUITES) console.log(`  ${s.name.padEnd(10)} ${s.about}`)
  process.exit(0)
}
const only = values.only?.split(',').map((s) => s.trim())
const unknown = only?.filter((name) => !SUITES.some((s) => s.name === name)) ?? []
if (unknown.length) {
  console.error(`Unknown suite ${unknown.join(', ')}; choose from ${SUITES.map((s) => s.name).join(', ')}`)
  process.exit(2)
}

/** `--servers 3`: a positive whole number, or exit 2 naming the flag. */
function count(flag: 'servers' | 'clients' | 'seconds'): number | undefined {
  const text = values[flag]
  if (text === undefined) return undefined
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${flag} must be a whole number of at least 1, got ${JSON.stringify(text)}`)
    process.exit(2)
  }
  return n
}
const team = { servers: count('servers'), clients: count('clients'), seconds: count('seconds') }

const figures: Figure[] = []
const scratch = mkdtempSync(join(tmpdir(), 'foundry-bench-'))
const ctx: BenchContext = {
  data: resolve(values.data!),
  quick: values.quick!,
  ...(values.before && { before: resolve(values.before) }),
  team: Object.fromEntries(Object.entries(team).filter(([, v]) => v !== undefined)),
  scratch,
  report: (f) => (figures.push({ load: loadavg()[0], ...f }), console.error(`  ${f.suite}: ${f.figure} = ${f.value}`)),
  log: (line) => console.error(line),
}
let failed = false
try {
  for (const suite of SUITES.filter((s) =>
    only ? only.includes(s.name) : !OPT_IN.has(s.name) || (s.name === 'peers' && values.peers),
  )) {
    console.error(`# ${suite.name}: ${suite.about}`)
    try {
      await suite.run(ctx)
    } catch (error) {
      failed = true
      console.error(`suite ${suite.name} failed: ${(error as Error).message}`)
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
console.log(
  `\nFoundry benchmarks, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}${ctx.quick ? ' (quick)' : ''}\n`,
)
console.log(renderTable(figures))
process.exit(failed ? 1 : 0)
