import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chromium, type Browser, type Page } from 'playwright-core'

const INSTALL =
  'install it with: apt-get update && apt-get install -y chromium (or set CHROMIUM_PATH to a Chromium or Chrome binary)'
const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
]

/** The browser the tests drive: `CHROMIUM_PATH`, else Debian's chromium; undefined when there is none. */
export function browserPath(): string | undefined {
  return [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p): p is string => !!p && existsSync(p))
}

/**
 * What a browser test does without a browser: on CI (`CI=true`) it fails saying how to install one;
 * elsewhere it is skipped with the same advice, printed once.
 */
let told = false
export function noBrowser(): void {
  const message = `the console's browser tests need Chromium and found none; ${INSTALL}`
  if (process.env.CI === 'true') throw new Error(message)
  if (!told) console.log(`console browser tests SKIPPED: ${message}`)
  told = true
}

export async function launch(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] })
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** axe-core's serious and critical violations on the page as it is (axe is injected through the devtools protocol, which the page's CSP does not govern). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource)
  const results = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            options: object,
          ): Promise<{
            passes: unknown[]
            violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: unknown }> }>
          }>
        }
      }
    ).axe
    return axe.run(document, { resultTypes: ['violations'] })
  })
  if (!results.passes.length) throw new Error('axe-core ran no rule on the page')
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target)).slice(0, 200)}`)
}

/** A page that sends `token` (sessionStorage, set before the console's script runs). */
export async function pageWithToken(browser: Browser, token: string | undefined): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 860 } })
  if (token) await page.addInitScript((t) => sessionStorage.setItem('foundry-console-token', t), token)
  return page
}
