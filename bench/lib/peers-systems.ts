// The four MCP memory servers of `bench --peers`, each behind one small interface: how it is
// started on a store of its own, how a record is written, searched and read back, what it keeps.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PeerRecord } from './peers-records.js'

/** The parts of a `tools/call` or `resources/read` result the bench reads. */
export interface McpResult {
  content?: Array<{ type: string; text?: string }>
  contents?: Array<{ text?: string }>
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

/** What the bench uses of the SDK's `Client`. */
export interface PeerClient {
  connect(transport: unknown): Promise<void>
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
    resultSchema?: unknown,
    options?: { timeout?: number },
  ): Promise<McpResult>
  readResource(params: { uri: string }): Promise<McpResult>
  close(): Promise<void>
}

/** How to start the server over stdio. */
export interface Launch {
  command: string
  args: string[]
  env: Record<string, string>
  cwd: string
}

export interface PeerSystem {
  /** The column heading. */
  name: string
  /** Package and version, for the table's caption. */
  version: string
  /** Create an empty store in `dir`. */
  prepare(dir: string): void
  launch(dir: string): Launch
  /** Write one record: undefined when the server acknowledged it, else what it answered. */
  write(client: PeerClient, record: PeerRecord): Promise<string | undefined>
  /** Load many records the fastest way the server offers (its batch tool, else concurrent writes with a cap). */
  seed(client: PeerClient, records: PeerRecord[]): Promise<void>
  /** How seeding goes, for the table's notes. */
  seedHow: string
  search(client: PeerClient, query: string): Promise<McpResult>
  /** The record titles of a search result, best first; the first `whole` come with their content, the rest are named only (Foundry's weaker matches). */
  titles(result: McpResult): { titles: string[]; whole: number }
  /** Everything in memory, read eagerly as a session start would; undefined when the server has no such tool or resource. */
  readAll(client: PeerClient): Promise<McpResult | undefined>
  readAllHow: string
  /** How many of `titles` the store holds, read from the store itself after every process has exited. */
  kept(dir: string, titles: string[]): number
}

const TIMEOUT = { timeout: 600_000 }
const textOf = (result: McpResult) => (result.content ?? result.contents ?? []).map((c) => c.text ?? '').join('\n')
/** A refusal in one line: the server's error text, JSON or not. */
const refusal = (result: McpResult) => textOf(result).replace(/\s+/g, ' ').slice(0, 160) || 'an error without text'

/** Run `fn` over `items` with at most `cap` at once. */
export async function capped<T>(items: T[], cap: number, fn: (item: T, i: number) => Promise<unknown>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(cap, items.length) }, async () => {
      while (next < items.length) {
        const i = next++
        await fn(items[i]!, i)
      }
    }),
  )
}

const here = createRequire(import.meta.url)
const mcpPackage = here.resolve('@foundry/cli/package.json')
const FOUNDRY_BIN = join(dirname(mcpPackage), 'dist', 'bin', 'foundry.js')
const FOUNDRY_VERSION = (JSON.parse(readFileSync(mcpPackage, 'utf8')) as { version: string }).version
const serverMemoryPackage = here.resolve('@modelcontextprotocol/server-memory/package.json')
const SERVER_MEMORY_BIN = join(dirname(serverMemoryPackage), 'dist', 'index.js')
const SERVER_MEMORY_VERSION = (JSON.parse(readFileSync(serverMemoryPackage, 'utf8')) as { version: string }).version
// @ai-devkit/memory exports only ESM entry points (no package.json): its bin is dist/index.js.
const AI_DEVKIT_BIN = fileURLToPath(import.meta.resolve('@ai-devkit/memory'))
const AI_DEVKIT_PACKAGE = join(dirname(AI_DEVKIT_BIN), '..', 'package.json')
const AI_DEVKIT_VERSION = (JSON.parse(readFileSync(AI_DEVKIT_PACKAGE, 'utf8')) as { version: string }).version

/**
 * A copy of the built `foundry` bin in `scratch`, so a rebuild of packages/foundry during the run (the
 * checkout is shared) neither removes it nor mixes two builds. The bin bundles everything but
 * better-sqlite3, which it finds through a link to packages/foundry/node_modules. Waits for a build in
 * progress to finish.
 */
export async function foundryBin(scratch: string): Promise<string> {
  const target = join(scratch, 'foundry-mcp')
  for (let tries = 0; ; tries++) {
    if (existsSync(FOUNDRY_BIN)) {
      await sleep(2000)
      cpSync(join(dirname(mcpPackage), 'dist'), join(target, 'dist'), { recursive: true })
      cpSync(mcpPackage, join(target, 'package.json'))
      if (!existsSync(join(target, 'node_modules')))
        symlinkSync(join(dirname(mcpPackage), 'node_modules'), join(target, 'node_modules'), 'dir')
      const bin = join(target, 'dist', 'bin', 'foundry.js')
      if (spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).status === 0) return bin
    }
    if (tries >= 60)
      throw new Error(
        `No working build at ${FOUNDRY_BIN}: run \`pnpm run build\` (or npx tsup in packages/foundry) first`,
      )
    await sleep(2000)
  }
}

/** `foundry mcp` (the bin at `bin`) on a project created by `foundry init --storage <kind>`, the default retriever. */
export function foundry(storage: 'fs' | 'sqlite', env: Record<string, string>, bin: string): PeerSystem {
  return {
    name: `Foundry ${storage}`,
    version: `@foundry/cli ${FOUNDRY_VERSION}`,
    prepare(dir) {
      const run = spawnSync(process.execPath, [bin, 'init', '--root', dir, '--storage', storage], {
        encoding: 'utf8',
        env,
      })
      if (run.status !== 0) throw new Error(`foundry init --storage ${storage} failed: ${run.stderr}`)
    },
    launch: (dir) => ({ command: process.execPath, args: [bin, 'mcp', '--root', dir], env, cwd: dir }),
    async write(client, record) {
      const result = await client.callTool(
        { name: 'memory_write', arguments: { title: record.title, body: record.body, type: record.type } },
        undefined,
        TIMEOUT,
      )
      return result.isError ? refusal(result) : undefined
    },
    seedHow: 'memory_write with facts, 500 facts a call, one call at a time',
    async seed(client, records) {
      for (let i = 0; i < records.length; i += 500) {
        const facts = records
          .slice(i, i + 500)
          .map((record) => ({ title: record.title, body: record.body, type: record.type }))
        const result = await client.callTool({ name: 'memory_write', arguments: { facts } }, undefined, TIMEOUT)
        if (result.isError) throw new Error(`Foundry ${storage} refused a seed batch: ${refusal(result)}`)
      }
    },
    search: (client, query) => client.callTool({ name: 'memory_search', arguments: { query } }, undefined, TIMEOUT),
    titles(result) {
      // The text: a block a fact (its title in bold), then "Weaker matches", one line each (`- fact-0021 Title`).
      const text = textOf(result)
      const full = [...text.matchAll(/^\*\*(.+)\*\*$/gm)].map((m) => m[1]!)
      const weaker = text.includes('Weaker matches')
        ? [...text.slice(text.indexOf('Weaker matches')).matchAll(/^- fact-\d+ (.+)$/gm)].map((m) => m[1]!.trim())
        : []
      return { titles: [...full, ...weaker], whole: full.length }
    },
    readAllHow: 'resources/read foundry://memory/index (INDEX.md, one line a fact, within its token budget)',
    readAll: (client) => client.readResource({ uri: 'foundry://memory/index' }),
    kept(dir, titles) {
      const run = spawnSync(process.execPath, [bin, 'list', '--root', dir, '--status', 'all', '--json'], {
        encoding: 'utf8',
        env,
        maxBuffer: 256 * 1024 * 1024,
      })
      if (run.status !== 0) throw new Error(`foundry list failed: ${run.stderr}`)
      const parsed = JSON.parse(run.stdout) as Array<{ title: string }> | { facts: Array<{ title: string }> }
      const facts = Array.isArray(parsed) ? parsed : parsed.facts
      const stored = new Set(facts.map((f) => f.title))
      return titles.filter((t) => stored.has(t)).length
    },
  }
}

/** `@modelcontextprotocol/server-memory`: a knowledge graph in one JSONL file (`MEMORY_FILE_PATH`); a record is an entity with one observation. */
export function serverMemory(env: Record<string, string>): PeerSystem {
  const file = (dir: string) => join(dir, 'memory.jsonl')
  const entity = (record: PeerRecord) => ({ name: record.title, entityType: record.type, observations: [record.body] })
  return {
    name: 'server-memory',
    version: `@modelcontextprotocol/server-memory ${SERVER_MEMORY_VERSION}`,
    prepare: (dir) => void mkdirSync(dir, { recursive: true }),
    launch: (dir) => ({
      command: process.execPath,
      args: [SERVER_MEMORY_BIN],
      env: { ...env, MEMORY_FILE_PATH: file(dir) },
      cwd: dir,
    }),
    async write(client, record) {
      const result = await client.callTool(
        { name: 'create_entities', arguments: { entities: [entity(record)] } },
        undefined,
        TIMEOUT,
      )
      const created = (result.structuredContent?.entities as Array<{ name: string }> | undefined) ?? []
      if (result.isError) return refusal(result)
      return created.some((e) => e.name === record.title) ? undefined : 'not created (an entity of that name exists)'
    },
    // Its tools read the file, change it and rewrite it with no lock: two calls at once in one process lose one's change, so batches go one after another.
    seedHow: 'create_entities, 500 entities a call, one call at a time',
    async seed(client, records) {
      for (let i = 0; i < records.length; i += 500) {
        const batch = records.slice(i, i + 500)
        const result = await client.callTool(
          { name: 'create_entities', arguments: { entities: batch.map(entity) } },
          undefined,
          TIMEOUT,
        )
        if (result.isError) throw new Error(`server-memory refused a seed batch: ${textOf(result).slice(0, 200)}`)
      }
    },
    search: (client, query) => client.callTool({ name: 'search_nodes', arguments: { query } }, undefined, TIMEOUT),
    titles(result) {
      const titles = ((result.structuredContent?.entities as Array<{ name: string }> | undefined) ?? []).map(
        (e) => e.name,
      )
      return { titles, whole: titles.length }
    },
    readAllHow: 'read_graph (the whole graph)',
    readAll: (client) => client.callTool({ name: 'read_graph', arguments: {} }, undefined, TIMEOUT),
    kept(dir, titles) {
      if (!existsSync(file(dir))) return 0
      const stored = new Set<string>()
      for (const line of readFileSync(file(dir), 'utf8').split('\n')) {
        if (!line.trim()) continue
        const item = JSON.parse(line) as { type: string; name?: string }
        if (item.type === 'entity' && item.name) stored.add(item.name)
      }
      return titles.filter((t) => stored.has(t)).length
    },
  }
}

/**
 * `@ai-devkit/memory` in its default lexical mode (FTS5 + BM25; semantic search is off unless a
 * `.ai-devkit.json` in the working folder turns it on). Its database is `~/.ai-devkit/memory.db`
 * with no option to move it, so each store gets its own HOME.
 */
export function aiDevkit(env: Record<string, string>): PeerSystem {
  const database = (dir: string) => join(dir, '.ai-devkit', 'memory.db')
  return {
    name: 'ai-devkit',
    version: `@ai-devkit/memory ${AI_DEVKIT_VERSION}`,
    prepare: (dir) => void mkdirSync(dir, { recursive: true }),
    launch: (dir) => ({ command: process.execPath, args: [AI_DEVKIT_BIN], env: { ...env, HOME: dir }, cwd: dir }),
    async write(client, record) {
      const result = await client.callTool(
        {
          name: 'memory_storeKnowledge',
          arguments: { title: record.title, content: record.body, tags: [record.type] },
        },
        undefined,
        TIMEOUT,
      )
      return result.isError ? refusal(result) : undefined
    },
    seedHow: 'memory_storeKnowledge, 8 at a time (no batch tool)',
    async seed(client, records) {
      await capped(records, 8, async (record) => {
        const refused = await this.write(client, record)
        if (refused) throw new Error(`ai-devkit refused the seed record "${record.title}": ${refused}`)
      })
    },
    search: (client, query) =>
      client.callTool({ name: 'memory_searchKnowledge', arguments: { query } }, undefined, TIMEOUT),
    titles(result) {
      if (result.isError) return { titles: [], whole: 0 }
      const titles = ((JSON.parse(textOf(result)) as { results?: Array<{ title: string }> }).results ?? []).map(
        (r) => r.title,
      )
      return { titles, whole: titles.length }
    },
    readAllHow: 'none over MCP (its tools are store, update and search, at most 20 results)',
    readAll: async () => undefined,
    kept(dir, titles) {
      if (!existsSync(database(dir))) return 0
      // Its own better-sqlite3, read-only, after every writer has exited.
      const Database = createRequire(AI_DEVKIT_PACKAGE)('better-sqlite3') as new (
        path: string,
        options: { readonly: boolean },
      ) => {
        prepare(sql: string): { all(): Array<{ title: string }> }
        close(): void
      }
      const db = new Database(database(dir), { readonly: true })
      try {
        const stored = new Set(
          db
            .prepare('SELECT title FROM knowledge')
            .all()
            .map((r) => r.title),
        )
        return titles.filter((t) => stored.has(t)).length
      } finally {
        db.close()
      }
    },
  }
}

/** The stdio client transport and environment of the SDK that `@foundry/cli` is built with. */
export function sdk(): {
  Client: new (info: { name: string; version: string }) => PeerClient
  StdioClientTransport: new (
    options: Launch & { stderr: 'pipe' | 'inherit' | 'ignore'; maxBufferSize?: number },
  ) => { pid: number | null }
  getDefaultEnvironment(): Record<string, string>
} {
  const fromMcp = createRequire(mcpPackage)
  return {
    ...(fromMcp('@modelcontextprotocol/sdk/client/index.js') as { Client: never }),
    ...(fromMcp('@modelcontextprotocol/sdk/client/stdio.js') as {
      StdioClientTransport: never
      getDefaultEnvironment: never
    }),
  }
}
