import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup } from './helpers.js'
import { consoleProject, startUi } from './console-runs.js'

/*
 * The console's Runs pages in Chromium over `foundry ui` and Marbles' real engine: a workflow
 * dispatched from the form runs in the `foundry ui` process, and its steps reach the open page as
 * that process journals them.
 */

const test = suite('the console dispatches a real workflow and shows its steps live')
test.after(cleanup)

const BROWSER = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
].find((p): p is string => !!p && existsSync(p))

/** `ship` waits for a `go` file in the project, so the test sees the run mid-way. */
const GATED = `import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from 'typebox'
import { workflow } from '@foundry/marbles'

export const release = workflow({
  name: 'release',
  description: 'Build, wait for the go file, ship',
  input: Type.Object({ service: Type.String({ minLength: 1 }), replicas: Type.Optional(Type.Integer({ minimum: 1 })) }),
  async run(ctx, input) {
    await ctx.step('build', () => 'built ' + input.service)
    await ctx.step('wait-for-go', async ({ signal }) => {
      while (!existsSync(join(process.cwd(), 'go'))) {
        if (signal.aborted) throw signal.reason
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    })
    await ctx.step('ship', () => ({ shipped: input.service, replicas: input.replicas ?? 1 }))
    return 'shipped'
  },
})
`

test('a run dispatched from the form streams its steps live while foundry ui runs it', async () => {
  if (!BROWSER) {
    const message = 'the browser test needs Chromium: apt-get install -y chromium (or set CHROMIUM_PATH)'
    if (process.env.CI === 'true') throw new Error(message)
    return void console.log(`SKIPPED: ${message}`)
  }
  const { root, run } = consoleProject({ 'release.ts': GATED })
  const ui = await startUi(root)
  const browser = await chromium.launch({
    executablePath: BROWSER,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  })
  try {
    const page = await browser.newPage()
    await page.addInitScript({ content: `sessionStorage.setItem('foundry-console-token', ${JSON.stringify(run)})` })
    await page.goto(`${ui.url}#/dispatch/release`)
    await page.getByLabel(/^service/).fill('billing')
    await page.getByLabel('replicas').fill('2')
    await page.getByRole('button', { name: 'Dispatch' }).click()
    await page.waitForURL(/#\/run\//)
    const step = (name: string, phase: string) =>
      page.locator('.steps li', { hasText: name }).locator('.badge', { hasText: phase }).waitFor({ timeout: 20_000 })
    await step('build', 'complete')
    await step('wait-for-go', 'running')
    assert.is(await page.locator('.steps li', { hasText: 'ship' }).count(), 0, 'ship has not started')
    writeFileSync(join(root, 'go'), '')
    await step('ship', 'complete')
    await page.locator('.run-status .badge', { hasText: 'complete' }).waitFor({ timeout: 20_000 })
    assert.equal(await page.locator('.steps li .mono').allTextContents(), ['build', 'wait-for-go', 'ship'])
    await page.getByRole('button', { name: 'Re-run' }).waitFor()
  } finally {
    await browser.close()
    assert.is(await ui.stop(), 0)
  }
})

test.run()
