/// <reference lib="dom" />
// The functions given to `page.evaluate` run in the browser.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { loadavg } from 'node:os'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { initProject, openProject } from '@foundry/project'
import { chromium, type Browser, type Page } from 'playwright-core'
import { requireData, type BenchContext, type Suite } from '../lib/context.js'
import { readJsonl, syntheticFacts } from '../lib/corpus.js'
import { latency, ms } from '../lib/measure.js'

// The console is served by the real `foundry ui` (a process of its own); the browser is Debian's Chromium driven by
// playwright-core, as the console's browser tests drive it.
const cliPackage = createRequire(import.meta.url).resolve('@foundry/cli/package.json')
const BIN = join(dirname(cliPackage), 'dist', 'bin', 'foundry.js')
const BROWSERS = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
const READ_TOKEN = 'bench-console-read-token'

/**
 * The web console at 10k facts on loopback: its first load in headless Chromium to interactive
 * (the Memory page's list rendered, the search box there) against a static page from bare node;
 * search as you type (every prefix of real queries, the console's API route, timed in the server) against
 * `memory.search` in process; a write by another process until the open page shows it.
 */
export const consoleSuite: Suite = {
  name: 'console',
  about:
    "the web console (`foundry ui`, headless Chromium) @10k facts: first load to interactive vs a static page from bare node; search as you type (the route's Server-Timing, and the round trip) vs memory.search in process; a write by another process shown on the open page",
  async run(ctx) {
    const executable = BROWSERS.find((p): p is string => !!p && existsSync(p))
    if (!executable)
      throw new Error('the console suite needs Chromium: apt-get install -y chromium, or set CHROMIUM_PATH')
    const size = ctx.quick ? 1000 : 10_000
    const root = await seededProject(ctx, size)
    const ui = await startConsole(root)
    ctx.log(`  console: load average ${loadLine()} at the start`)
    const browser = await chromium.launch({
      executablePath: executable,
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    })
    try {
      await firstLoad(ctx, browser, ui.url, size)
      await searchAsYouType(ctx, ui.url, root, size)
      await writeShown(ctx, browser, ui.url, root, size)
    } finally {
      ctx.log(`  console: load average ${loadLine()} at the end`)
      await browser.close()
      await ui.stop()
    }
  },
}

/** A project (`foundry init`'s default storage) with `size` facts written through the batch path, a read token, and its index built. */
async function seededProject(ctx: BenchContext, size: number): Promise<string> {
  const root = join(ctx.scratch, `console-${size}`)
  mkdirSync(root, { recursive: true })
  await initProject({ root })
  const project = await openProject({ root })
  const t = performance.now()
  const facts = syntheticFacts(ctx, size)
  for (let i = 0; i < facts.length; i += 500) await project.kernel.memory.writeMany(facts.slice(i, i + 500))
  await project.kernel.memory.search({ query: 'warm up the index' })
  ctx.log(
    `  console: ${size} facts written (memory.writeMany, 500 a call) on ${project.adapters.storage.kind} in ${ms((performance.now() - t) / 1000)} s`,
  )
  await project.close()
  const sha256 = createHash('sha256').update(READ_TOKEN).digest('hex')
  writeFileSync(
    join(root, '.foundry', 'tokens.json'),
    JSON.stringify({ tokens: [{ name: 'bench', roles: ['read'], sha256, created: '2026-12-01' }] }),
  )
  return root
}

/** `foundry ui --port 0` on `root`, until `stop()`; its address read from the line it prints. */
async function startConsole(root: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'ui', '--port', '0', '--root', root], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let err = ''
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /foundry console: (http:\/\/\S+\/)/.exec(err)
      if (m) resolve(m[1]!)
    })
    child.once('exit', (code) => reject(new Error(`foundry ui exited ${code}: ${err.slice(0, 500)}`)))
  })
  return { url, stop: () => stopChild(child) }
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

declare global {
  interface Window {
    /** `performance.now()` (from navigation start) when the awaited element appeared. */
    __shown?: number
    /** `Date.now()` when an element holding `__awaitText` appeared in `.results`. */
    __seenAt?: number
    __awaitText?: string
  }
}

/**
 * The script a page runs before its own (as text: tsx's helpers do not exist in the page): the
 * token for the tab, and a MutationObserver that sets `__shown` (`performance.now()`, from navigation
 * start) when `selector` first matches, on the console once the search box is there too, and
 * `__seenAt` (`Date.now()`) when a result titled `__awaitText` appears.
 */
function watcher(selector: string): string {
  return `
sessionStorage.setItem('foundry-console-token', ${JSON.stringify(READ_TOKEN)})
new MutationObserver(() => {
  const isConsole = ${JSON.stringify(selector)} === '.results li'
  const search = document.getElementById('search')
  if (window.__shown === undefined && (!isConsole || (search && !search.disabled)) && document.querySelector(${JSON.stringify(selector)}))
    window.__shown = performance.now()
  const wanted = window.__awaitText
  if (wanted && window.__seenAt === undefined)
    for (const a of document.querySelectorAll('.results a.title')) if (a.textContent === wanted) window.__seenAt = Date.now()
}).observe(document, { childList: true, subtree: true, characterData: true })
`
}

/**
 * A page in a new browser context (empty cache: a cold load) that notes when `selector` first
 * matches (and, on the console, the search box exists), in the page's own clock from navigation start.
 */
async function coldPage(browser: Browser, selector: string): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 860 } })
  await context.addInitScript(watcher(selector))
  const page = await context.newPage()
  return { page, close: () => context.close() }
}

/** Navigation start → `selector` shown, in a cold context; with the console's API timings for the log. */
async function loadOnce(browser: Browser, url: string, selector: string): Promise<{ ms: number; detail: string }> {
  const { page, close } = await coldPage(browser, selector)
  try {
    await page.goto(url)
    await page.waitForFunction(() => window.__shown !== undefined, undefined, { timeout: 60_000 })
    return await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming
      const res = performance.getEntriesByType('resource') as PerformanceResourceTiming[]
      const parts = res
        .filter((r) => !r.name.includes('api/live'))
        .map((r) => `${r.name.replace(/^.*\//, '').slice(0, 24)} ${r.startTime.toFixed(0)}→${r.responseEnd.toFixed(0)}`)
      return {
        ms: window.__shown!,
        detail: `page ${nav.responseEnd.toFixed(0)}, DOMContentLoaded ${nav.domContentLoadedEventEnd.toFixed(0)}; ${parts.join(', ')}`,
      }
    })
  } finally {
    await close()
  }
}

/** First load to interactive, p50 over cold loads, against a static page served by bare node in the same browser. */
async function firstLoad(ctx: BenchContext, browser: Browser, url: string, size: number): Promise<void> {
  const runs = ctx.quick ? 3 : 9
  const bare = createServer((_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><html lang="en"><title>static</title><p id="ready">A static page.</p></html>'),
  )
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve))
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`
  const afterStart = await loadOnce(browser, `${url}#/memory`, '.results li')
  ctx.log(`  console: first load after the server started ${ms(afterStart.ms)} ms (${afterStart.detail})`)
  const loads: number[] = []
  const statics: number[] = []
  try {
    // Alternating, so a busy moment of the machine weighs on both.
    for (let i = 0; i < runs; i++) {
      const load = await loadOnce(browser, `${url}#/memory`, '.results li')
      loads.push(load.ms)
      ctx.log(`  console: cold load ${i + 1}: ${ms(load.ms)} ms (${load.detail})`)
      statics.push((await loadOnce(browser, bareUrl, '#ready')).ms)
    }
  } finally {
    bare.close()
  }
  const page = latency(loads)
  const base = latency(statics)
  ctx.report({
    suite: 'console',
    figure: `first load to interactive (Memory page's list rendered, search box there), navigation start →, p50 / max of ${runs} cold loads @${label(size)}`,
    value: `${ms(page.p50)} / ${ms(Math.max(...loads))} ms`,
    baseline: `a static page from bare node, same browser: ${ms(base.p50)} ms`,
    ratio: page.p50 / base.p50,
    target: '≤ 300 ms',
    met: page.p50 <= 300,
  })
}

/**
 * Search as you type: every prefix of real queries (SciFact's claims), one after another as
 * keystrokes send them, through the console's API route on loopback: the route's own time (its
 * Server-Timing header) and the HTTP round trip, against the same searches by `memory.search` in process.
 */
async function searchAsYouType(ctx: BenchContext, url: string, root: string, size: number): Promise<void> {
  const claims = readJsonl<{ text: string }>(requireData(ctx, 'scifact/queries.jsonl'))
  const chosen = claims.filter((_, i) => i % 97 === 0).slice(0, ctx.quick ? 3 : 12)
  const prefixes = chosen.flatMap((c) => [...c.text].map((_, i) => c.text.slice(0, i + 1).trim()).filter(Boolean))
  const headers = { authorization: `Bearer ${READ_TOKEN}`, accept: 'application/json' }
  const ask = async (q: string) => {
    const res = await fetch(`${url}api/facts?${new URLSearchParams({ q, type: '', status: 'active' })}`, { headers })
    if (!res.ok) throw new Error(`api/facts answered ${res.status}: ${(await res.text()).slice(0, 200)}`)
    const route = /route;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')
    if (!route) throw new Error('api/facts answered without its Server-Timing header')
    return { rows: ((await res.json()) as { facts: unknown[] }).facts.length, route: Number(route[1]) }
  }
  for (const q of prefixes.slice(0, 20)) await ask(q)
  const http: number[] = []
  const server: number[] = []
  let rows = 0
  for (const q of prefixes) {
    const t = performance.now()
    const answer = await ask(q)
    http.push(performance.now() - t)
    server.push(answer.route)
    rows += answer.rows
  }
  const project = await openProject({ root })
  const local: number[] = []
  try {
    await project.kernel.memory.warm()
    for (const q of prefixes.slice(0, 20)) await project.kernel.memory.search({ query: q, limit: 25 })
    for (const q of prefixes) {
      const t = performance.now()
      await project.kernel.memory.search({ query: q, limit: 25 })
      local.push(performance.now() - t)
    }
  } finally {
    await project.close()
  }
  const route = latency(server)
  const round = latency(http)
  const inProcess = latency(local)
  ctx.log(
    `  console: ${prefixes.length} prefixes of ${chosen.length} queries, ${ms(rows / prefixes.length)} rows an answer; round trip p50 / p99 ${ms(round.p50)} / ${ms(round.p99)} ms`,
  )
  ctx.report({
    suite: 'console',
    figure: `search as you type p50 / p99 @${label(size)}: the api/facts?q=<prefix> route in the server (Server-Timing), ${prefixes.length} prefixes; the HTTP round trip on loopback ${ms(round.p50)} / ${ms(round.p99)} ms`,
    value: `${ms(route.p50)} / ${ms(route.p99)} ms`,
    baseline: `memory.search in process ${ms(inProcess.p50)} / ${ms(inProcess.p99)} ms`,
    ratio: route.p50 / inProcess.p50,
    target: 'p50 ≤ 30 ms',
    met: route.p50 <= 30,
  })
}

/**
 * A process that opens the project and writes each fact it reads on stdin (one JSON line) with
 * `memory.write`, answering `{ id, started, done }` (`Date.now()` around the write).
 */
const WRITER = `
const { openProject } = await import(process.env.FOUNDRY_PROJECT)
const project = await openProject({ root: process.argv[1] })
const lines = (await import('node:readline')).createInterface({ input: process.stdin })
process.stdout.write('ready\\n')
for await (const line of lines) {
  const started = Date.now()
  const { id } = await project.kernel.memory.write(JSON.parse(line))
  process.stdout.write(JSON.stringify({ id, started, done: Date.now() }) + '\\n')
}
await project.close()
`

/** A write by another process until the open Memory page shows it (server-sent events, then the list again). */
async function writeShown(ctx: BenchContext, browser: Browser, url: string, root: string, size: number): Promise<void> {
  const n = ctx.quick ? 5 : 20
  const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, root], {
    env: { ...process.env, FOUNDRY_PROJECT: import.meta.resolve('@foundry/project') },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const answers = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  const next = async () => {
    const { value, done } = await answers.next()
    if (done) throw new Error('the writer process ended early')
    return value as string
  }
  const { page, close } = await coldPage(browser, '.results li')
  const shown: number[] = []
  const written: number[] = []
  const refetch: number[] = []
  try {
    if ((await next()) !== 'ready') throw new Error('the writer process did not start')
    await page.goto(`${url}#/memory`)
    await page.waitForFunction(() => window.__shown !== undefined, undefined, { timeout: 60_000 })
    let listStarted = 0
    page.on('request', (r) => r.url().includes('api/facts?') && (listStarted = Date.now()))
    for (let i = 0; i < n; i++) {
      const title = `Console bench write ${i}: the deploy window closes at 17:00 UTC`
      await page.evaluate((t) => {
        window.__seenAt = undefined
        window.__awaitText = t
      }, title)
      child.stdin!.write(
        `${JSON.stringify({ title, body: `Written by another process, number ${i}.`, type: 'convention' })}\n`,
      )
      const { done, started } = JSON.parse(await next()) as { done: number; started: number }
      await page.waitForFunction(() => window.__seenAt !== undefined, undefined, { timeout: 30_000 })
      const seenAt = await page.evaluate(() => window.__seenAt!)
      shown.push(seenAt - done)
      written.push(done - started)
      refetch.push(seenAt - listStarted)
    }
  } finally {
    await close()
    child.stdin!.end()
    await stopChild(child)
  }
  const lag = latency(shown)
  ctx.log(
    `  console: of which the list fetched again and shown p50 ${ms(latency(refetch).p50)} ms (the rest: the change noticed, polled every 150 ms on a storage without notifications)`,
  )
  ctx.report({
    suite: 'console',
    figure: `a write by another process (memory.write returned) shown on the open Memory page p50 / max, ${n} writes @${label(size)}`,
    value: `${ms(lag.p50)} / ${ms(Math.max(...shown))} ms`,
    baseline: `the write itself ${ms(latency(written).p50)} ms`,
    target: '≤ 500 ms',
    met: Math.max(...shown) <= 500,
  })
}

const label = (size: number) => (size >= 1000 ? `${size / 1000}k` : String(size))
const loadLine = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')
