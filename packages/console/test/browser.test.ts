import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject } from '@foundry/project'
import { serveConsole } from '../src/index.js'
import type { ConsoleServer } from '../src/serve.js'
import { browserPath, launch, noBrowser, pageWithToken, seriousViolations } from './browser.js'
import { cleanup, fillProject, startAppender, tempProject, writeRun } from './helpers.js'
import { storageRunActions } from './run-actions.js'

const READ = 'read-secret-123'
const WRITE = 'write-secret-456'
const RUN = 'run-secret-789'
const executable = browserPath()
let browser: Browser
let server: ConsoleServer
let root: string
let chain: string[]
let hostile: string
const pages: Page[] = []

test.before(async () => {
  if (!executable) return
  root = await tempProject()
  const filled = await fillProject(root)
  chain = filled.chain
  hostile = filled.hostile
  await writeRun(filled.project, 'run-7f3a')
  await filled.project.close()
  const tokens = [
    { name: 'viewer', roles: ['read'], sha256: createHash('sha256').update(READ).digest('hex'), created: '2026-12-01' },
    { name: 'bob', roles: ['write'], sha256: createHash('sha256').update(WRITE).digest('hex'), created: '2026-12-01' },
    { name: 'carol', roles: ['run'], sha256: createHash('sha256').update(RUN).digest('hex'), created: '2026-12-01' },
  ]
  writeFileSync(join(root, '.foundry', 'tokens.json'), JSON.stringify({ tokens }))
  server = await serveConsole({ root, port: 0, runs: storageRunActions })
  browser = await launch(executable)
})

test.after(async () => {
  await browser?.close()
  await server?.close()
  cleanup()
})

test.after.each(async () => {
  for (const page of pages.splice(0)) await page.close()
})

/** A page of the console at `hash`, sending `token`, its dialogs counted. */
async function open(hash: string, token: string | undefined = READ): Promise<{ page: Page; dialogs: string[] }> {
  const page = await pageWithToken(browser, token)
  pages.push(page)
  const dialogs: string[] = []
  page.on('dialog', (d) => (dialogs.push(d.message()), void d.dismiss()))
  await page.goto(`${server.url}${hash}`)
  return { page, dialogs }
}

const maybe = (name: string, fn: () => Promise<void>) => test(name, async () => (executable ? fn() : noBrowser()))

maybe('keyboard reaches the search box and the results; a result opens its fact', async () => {
  const { page } = await open('#/memory')
  await page.locator('.results li').first().waitFor()
  let reached = false
  for (let i = 0; i < 15 && !reached; i++) {
    await page.keyboard.press('Tab')
    reached = await page.evaluate(() => document.activeElement?.id === 'search')
  }
  assert.ok(reached, 'Tab reaches the search box')
  await page.keyboard.type('flyway deploy')
  await page.locator('.results li mark').first().waitFor()
  assert.ok(
    (await page.locator('.results mark').allTextContents()).some((t) => /^flyway$/i.test(t)),
    'matched words are highlighted',
  )
  let onResult = false
  for (let i = 0; i < 6 && !onResult; i++) {
    await page.keyboard.press('Tab')
    onResult = await page.evaluate(() => !!document.activeElement?.closest('.results'))
  }
  assert.ok(onResult, 'Tab goes on from the search box to the results')
  await page.keyboard.press('Enter')
  await page.locator('h1', { hasText: 'Flyway migrations run at deploy' }).waitFor()
  assert.match(page.url(), new RegExp(`#/fact/${chain[2]}$`))
})

maybe('a URL carrying #token= signs the tab in and drops the token from the address', async () => {
  const { page } = await open(`#token=${READ}`, undefined)
  await page.getByRole('button', { name: 'Access: viewer (read)' }).waitFor()
  assert.ok(page.url().endsWith('#/memory'), page.url())
  assert.not.match(page.url(), READ)
  await page.locator('.results li').first().waitFor()
})

maybe('a supersede chain is followed from the oldest fact to the current one', async () => {
  const { page } = await open(`#/fact/${chain[0]}`)
  await page.locator('h1', { hasText: 'Liquibase' }).waitFor()
  await page.locator('dd a', { hasText: chain[1]! }).click()
  await page.locator('h1', { hasText: 'Flyway for schema migrations' }).waitFor()
  await page.locator('dd a', { hasText: chain[2]! }).click()
  await page.locator('h1', { hasText: 'never at application start' }).waitFor()
  assert.equal(
    await page.locator('.timeline li').evaluateAll((lis) => lis.map((li) => li.querySelector('.mono')?.textContent)),
    chain,
  )
  assert.is(await page.locator('.timeline li[aria-current="step"] .mono').textContent(), chain[2])
  assert.match((await page.locator('.details').textContent()) ?? '', /alice/)
})

maybe('forget is refused with a read token and done with a write token', async () => {
  const project = await openProject({ root })
  const target = (await project.kernel.memory.search({ query: 'integer cents' })).hits[0]!.fact.id
  await project.close()
  const { page } = await open(`#/fact/${target}`)
  await page.getByRole('button', { name: 'Forget…' }).click()
  await page.getByLabel('Why is it forgotten?').fill('billing moved to the ledger service')
  await page.getByRole('button', { name: `Forget ${target}` }).click()
  assert.match((await page.getByRole('alert').textContent()) ?? '', /token viewer has role read; this needs write/)
  await page.getByRole('button', { name: /^Access:/ }).click()
  await page.getByLabel('Access token').fill(WRITE)
  await page.getByRole('button', { name: 'Use' }).click()
  await page.getByRole('button', { name: /^Access: bob/ }).waitFor()
  await page.getByRole('button', { name: `Forget ${target}` }).click()
  await page.locator('.details dd', { hasText: 'billing moved to the ledger service' }).waitFor()
  const check = await openProject({ root })
  const fact = await check.kernel.memory.get(target)
  await check.close()
  assert.is(fact.status, 'forgotten')
})

maybe('the Review page: a write token accepts one proposal, rejects one, edits one', async () => {
  const project = await openProject({ root })
  await project.kernel.review.propose(
    [
      { title: 'Refunds need 2 approvals', body: 'Why: fraud.\nHow to apply: ask finance.', type: 'decision' },
      { title: 'Invoices are numbered per month', body: 'INV-2026-01-0001.', type: 'convention' },
      { title: 'Tax is computed per line', body: 'Not per invoice.', type: 'convention' },
    ],
    { author: 'capture', origin: 'session-9' },
  )
  await project.close()
  const { page } = await open('#/review', WRITE)
  await page.getByRole('heading', { name: 'Tax is computed per line' }).waitFor()
  const card = (title: string) => page.locator('article.proposal', { has: page.getByRole('heading', { name: title }) })
  await card('Refunds need 2 approvals').getByRole('button', { name: 'Accept' }).click()
  await page.locator('.decisions li', { hasText: 'created: fact-' }).waitFor()
  await card('Invoices are numbered per month').getByRole('button', { name: 'Reject…' }).click()
  await card('Invoices are numbered per month').getByLabel('Why (optional)').fill('numbered per year')
  await page.getByRole('button', { name: 'Reject proposal-0002' }).click()
  await page.locator('.decisions li', { hasText: 'rejected: proposal-0002' }).waitFor()
  await card('Tax is computed per line').getByRole('button', { name: 'Edit' }).click()
  await card('Tax is computed per line').getByLabel('Body').fill('Per line, rounded half up.')
  await page.getByRole('button', { name: 'Save the proposal' }).click()
  await page.locator('.decisions li', { hasText: 'edited: proposal-0003' }).waitFor()
  await card('Tax is computed per line').locator('.body', { hasText: 'rounded half up' }).waitFor()
  assert.equal(await page.locator('article.proposal h2').allTextContents(), ['Tax is computed per line'])
  assert.equal(await seriousViolations(page), [], 'no serious accessibility violation')
  const check = await openProject({ root })
  const all = (await check.kernel.review.list({ status: 'all' })).proposals.map((p) => [p.id, p.status, p.reason ?? ''])
  await check.close()
  assert.equal(all, [
    ['proposal-0001', 'accepted', ''],
    ['proposal-0002', 'rejected', 'numbered per year'],
    ['proposal-0003', 'proposed', ''],
  ])
})

maybe('a fact written by another writer appears on the open Memory page without a reload', async () => {
  const { page } = await open('#/memory')
  await page.locator('.results li').first().waitFor()
  const writer = await openProject({ root })
  try {
    await writer.kernel.memory.write({
      title: 'Queue consumers must be idempotent',
      body: 'Messages can arrive twice; handle a repeat as a no-op.',
      type: 'convention',
    })
  } finally {
    await writer.close()
  }
  await page.locator('.results a', { hasText: 'Queue consumers must be idempotent' }).waitFor({ timeout: 5000 })
  await page.locator('main h1').click()
  await page.keyboard.press('/')
  await page.waitForFunction(() => document.activeElement?.id === 'search', undefined, { timeout: 5000 })
})

maybe('edit from the fact page writes a new fact that supersedes it, by the write token', async () => {
  const project = await openProject({ root })
  const target = (await project.kernel.memory.search({ query: 'problem details' })).hits[0]!.fact.id
  await project.close()
  const { page } = await open(`#/fact/${target}`, WRITE)
  await page.getByRole('button', { name: 'Edit' }).click()
  await page.getByLabel('Title').fill('API errors use RFC 9457 problem details with a stable type URI')
  await page.getByRole('button', { name: 'Save as a new fact' }).click()
  await page.locator('h1', { hasText: 'with a stable type URI' }).waitFor()
  assert.not.match(page.url(), new RegExp(`${target}$`))
  assert.equal(await page.locator('.timeline li .badge').allTextContents(), ['superseded', 'active'])
  assert.match((await page.locator('.details').textContent()) ?? '', /author\s*bob/)
})

maybe('a hostile title and a javascript: link stay inert text', async () => {
  const { page, dialogs } = await open(`#/fact/${hostile}`)
  await page.locator('h1', { hasText: '<img src=x onerror=alert(1)>' }).waitFor()
  await page.locator('.body', { hasText: 'javascript:alert(1)' }).waitFor()
  const found = await page.evaluate(() => ({
    images: document.querySelectorAll('main img').length,
    scripts: [...document.querySelectorAll('script')].map((s) => s.getAttribute('src')),
    handlers: [...document.querySelectorAll('*')].flatMap((el) =>
      [...el.attributes].filter((a) => a.name.startsWith('on')).map((a) => `${el.tagName}.${a.name}`),
    ),
    jsLinks: [...document.querySelectorAll('a')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href') ?? ''))
      .length,
  }))
  assert.equal(found, { images: 0, scripts: ['./app.js'], handlers: [], jsLinks: 0 })
  await page.goto(`${server.url}#/memory?status=all`)
  await page.locator('.results a', { hasText: '<img src=x onerror=alert(1)>' }).waitFor()
  assert.is(await page.locator('main img').count(), 0)
  assert.equal(dialogs, [])
})

maybe("a run's journal streams live while another process appends to it", async () => {
  const { page } = await open('#/run/run-7f3a')
  await page.locator('.journal li', { hasText: 'status → running' }).waitFor()
  const appender = startAppender(root, 'run-7f3a')
  try {
    await appender.append('audit step started')
    await page.locator('.journal li', { hasText: 'audit step started' }).waitFor({ timeout: 5000 })
    await appender.append('audit step finished')
    await page.locator('.journal li', { hasText: 'audit step finished' }).waitFor({ timeout: 5000 })
  } finally {
    await appender.stop()
  }
  assert.is(await page.locator('.journal li').count(), 4)
})

/** The first journal record of a run: the one that carries its input. */
async function firstRecord(id: string): Promise<{ input?: unknown; rerunOf?: string }> {
  const project = await openProject({ root })
  try {
    return JSON.parse((await project.storage.readLog(`marbles/${id}`, 0)).entries[0]!)
  } finally {
    await project.close()
  }
}

const runIdOf = (url: string) => decodeURIComponent(/#\/run\/([^/?]+)$/.exec(url)?.[1] ?? '')

maybe('a run dispatched from the page streams its steps live while a second process writes', async () => {
  const { page } = await open('#/runs', RUN)
  await page.getByRole('link', { name: 'Dispatch a workflow' }).click()
  await page.getByRole('heading', { name: 'Dispatch a workflow' }).waitFor()
  assert.is(await page.getByLabel('Workflow').inputValue(), 'deploy')
  await page.getByLabel('replicas').fill('3')
  await page.getByRole('button', { name: 'Dispatch' }).click()
  const refused = (await page.getByRole('alert').textContent()) ?? ''
  assert.match(refused, /^Invalid input of workflow deploy: .*service/, 'the server names the missing field')
  await page.getByLabel(/^service/).fill('billing')
  await page.getByLabel(/canary/).check()
  await page.getByLabel('region').selectOption('eu-west')
  await page.getByLabel(/tags/).fill('["blue", "green"]')
  await page.getByRole('button', { name: 'Dispatch' }).click()
  await page.waitForURL(/#\/run\/run-/)
  const id = runIdOf(page.url())
  assert.equal((await firstRecord(id)).input, {
    service: 'billing',
    replicas: 3,
    canary: true,
    region: 'eu-west',
    tags: ['blue', 'green'],
  })
  await page.locator('.run-status .badge', { hasText: 'running' }).waitFor()
  await page.getByText('No step has started yet.').waitFor()
  const worker = startAppender(root, id)
  try {
    await worker.append(JSON.stringify({ type: 'step', phase: 'start', step: 'build', attempt: 1 }))
    await page
      .locator('.steps li', { hasText: 'build' })
      .locator('.badge', { hasText: 'running' })
      .waitFor({ timeout: 5000 })
    await worker.append('image billing:41 built')
    await page.locator('.journal li', { hasText: 'image billing:41 built' }).waitFor({ timeout: 5000 })
    await worker.append(JSON.stringify({ type: 'step', phase: 'end', step: 'build', attempt: 1, ms: 812 }))
    await worker.append(JSON.stringify({ type: 'step', phase: 'start', step: 'ship', attempt: 1 }))
    await page.locator('.steps li', { hasText: 'ship' }).waitFor({ timeout: 5000 })
  } finally {
    await worker.stop()
  }
  assert.equal(await page.locator('.steps li .mono').allTextContents(), ['build', 'ship'])
  assert.equal(await page.locator('.steps li .badge').allTextContents(), ['complete', 'running'])
})

maybe('cancel a running run from the page: refused with a read token, done with a run token', async () => {
  const project = await openProject({ root })
  await writeRun(project, 'run-cancel-me')
  await project.close()
  const { page } = await open('#/run/run-cancel-me', READ)
  await page.getByRole('button', { name: 'Cancel run…' }).click()
  await page.getByRole('button', { name: 'Yes, cancel the run' }).click()
  assert.match((await page.getByRole('alert').textContent()) ?? '', /token viewer has role read; this needs run/)
  await page.getByRole('button', { name: /^Access:/ }).click()
  await page.getByLabel('Access token').fill(RUN)
  await page.getByRole('button', { name: 'Use' }).click()
  await page.getByRole('button', { name: /^Access: carol/ }).waitFor()
  await page.getByRole('button', { name: 'Yes, cancel the run' }).click()
  await page.locator('.run-status .badge', { hasText: 'cancelled' }).waitFor({ timeout: 5000 })
  await page.locator('.journal li', { hasText: 'status → cancelled: cancelled by request' }).waitFor()
  await page.getByRole('button', { name: 'Re-run' }).waitFor()
})

maybe('re-run an ended run: the new run opens, linked to the old one, with its input', async () => {
  const { page } = await open('#/runs', RUN)
  await page.getByRole('link', { name: 'Dispatch a workflow' }).click()
  await page.getByLabel(/^service/).fill('ledger')
  await page.getByRole('button', { name: 'Dispatch' }).click()
  await page.waitForURL(/#\/run\/run-/)
  const first = runIdOf(page.url())
  await page.getByRole('button', { name: 'Cancel run…' }).click()
  await page.getByRole('button', { name: 'Yes, cancel the run' }).click()
  await page.getByRole('button', { name: 'Re-run' }).click()
  await page.waitForURL((url) => /#\/run\/run-/.test(url.hash) && runIdOf(url.href) !== first)
  const second = runIdOf(page.url())
  await page.locator('h1', { hasText: second }).waitFor()
  await page.locator('.run-status .badge', { hasText: 'running' }).waitFor()
  const record = await firstRecord(second)
  assert.equal([record.rerunOf, record.input], [first, { service: 'ledger' }])
})

maybe('the main pages have no serious or critical accessibility violations', async () => {
  const checks: Array<[string, string]> = [
    ['#/memory?q=flyway', '.results li'],
    [`#/fact/${chain[1]}`, '.timeline li'],
    ['#/index', '.index-text'],
    ['#/library', 'table'],
    ['#/tokens', '.chart'],
    ['#/runs', 'table'],
    ['#/dispatch/deploy', 'form.dispatch'],
    ['#/health', '.details'],
  ]
  const { page } = await open('#/memory')
  const found: string[] = []
  for (const [hash, ready] of checks) {
    await page.goto(`${server.url}${hash}`)
    await page.locator(ready).first().waitFor()
    found.push(...(await seriousViolations(page)).map((v) => `${hash}: ${v}`))
  }
  await page.goto(`${server.url}#/fact/${chain[2]}`)
  await page.getByRole('button', { name: 'Edit' }).click()
  await page.getByRole('button', { name: /^Access:/ }).click()
  await page.getByLabel('Access token').waitFor()
  found.push(...(await seriousViolations(page)).map((v) => `edit and token forms: ${v}`))
  assert.equal(found, [])
})

test.run()
