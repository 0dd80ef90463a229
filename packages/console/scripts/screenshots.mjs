#!/usr/bin/env node
// Screenshots of the console's main pages into docs/console/*.png, over a sample project made for
// the occasion (the tests' fixture). Build first: cd packages/console && npx tsup.
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { register } from 'tsx/esm/api'

register()
const { fillProject, tempProject, writeRun, cleanup } = await import('../test/helpers.ts')
const { browserPath, launch } = await import('../test/browser.ts')
const { storageRunActions } = await import('../test/run-actions.ts')
const { serveConsole } = await import('../dist/index.js')

const out = fileURLToPath(new URL('../../../docs/console/', import.meta.url))
mkdirSync(out, { recursive: true })
const executable = browserPath()
if (!executable) {
  console.error('screenshots: no Chromium found; install it with apt-get install -y chromium (or set CHROMIUM_PATH)')
  process.exit(1)
}

const root = await tempProject()
const { project, chain } = await fillProject(root)
await writeRun(project, 'run-7f3a')
await project.storage.appendLog('marbles/run-7f3a', [
  JSON.stringify({ seq: 2, at: Date.now(), type: 'step', phase: 'start', step: 'scan', attempt: 1 }),
  JSON.stringify({ seq: 3, at: Date.now(), type: 'log', level: 'info', message: 'scanned 214 files', step: 'scan' }),
  JSON.stringify({ seq: 4, at: Date.now(), type: 'step', phase: 'end', step: 'scan', attempt: 1, ms: 5120 }),
  JSON.stringify({ seq: 5, at: Date.now(), type: 'step', phase: 'start', step: 'report', attempt: 1 }),
])
await project.close()
const server = await serveConsole({ root, port: 0, runs: storageRunActions })
const browser = await launch(executable)
const page = await browser.newPage({ viewport: { width: 1200, height: 820 } })
const shots = [
  ['memory', '#/memory?q=flyway%20migrations', '.results mark'],
  ['fact', `#/fact/${chain[2]}`, '.timeline li'],
  ['index', '#/index', '.index-text'],
  ['library', '#/library', 'table'],
  ['tokens', '#/tokens', '.chart'],
  ['run', '#/run/run-7f3a', '.journal li'],
  ['dispatch', '#/dispatch/deploy', 'form.dispatch'],
  ['health', '#/health', '.details'],
]
try {
  for (const [name, hash, ready] of shots) {
    await page.goto(`${server.url}${hash}`)
    await page.locator(ready).first().waitFor()
    await page.screenshot({ path: `${out}${name}.png`, fullPage: true })
    console.log(`docs/console/${name}.png`)
  }
} finally {
  await browser.close()
  await server.close()
  cleanup()
}
