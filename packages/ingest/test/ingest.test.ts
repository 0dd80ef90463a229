import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKernel, memoryStorage, type Fact } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ingest } from '../src/index.js'
import { parseAdr } from '../src/adr.js'
import { parseRules } from '../src/instructions.js'

const FIXTURE = new URL('./fixtures/project', import.meta.url).pathname
const made: string[] = []
test.after(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

/** A copy of the fixture project, to change files in. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'foundry-ingest-'))
  made.push(dir)
  cpSync(FIXTURE, dir, { recursive: true })
  return dir
}

const byTitle = (facts: Fact[], title: string) => facts.find((f) => f.title === title)

test('ADRs in three formats: number, title, state, sections and the chains they state', () => {
  const adr = (name: string) => parseAdr(readFileSync(join(FIXTURE, 'docs', 'adr', name), 'utf8'), name)!
  const nygard = adr('0002-use-liquibase-for-migrations.md')
  assert.is(nygard.number, 2)
  assert.is(nygard.title, 'Use Liquibase for database migrations')
  assert.is(nygard.state, 'superseded')
  assert.equal(nygard.supersededBy, [4])
  assert.match(nygard.decision, /^We will use Liquibase/)
  const madr = adr('0003-use-graphql.md')
  assert.is(madr.state, 'rejected')
  assert.match(madr.decision, /^Chosen option: "REST with sparse fieldsets"/)
  assert.match(madr.context, /^Clients ask for flexible queries/)
  assert.match(madr.consequences, /HTTP caching keeps working/)
  const table = adr('ADR-4.md')
  assert.is(table.number, 4)
  assert.is(table.state, 'accepted')
  assert.is(table.status, 'Approved')
  assert.equal(table.supersedes, [2])
  assert.is(parseAdr('no heading here\n', '0009-x.md'), undefined)
})

test('instruction files: top-level list items under their headings, continuations folded, code blocks and short items left out', () => {
  const rules = parseRules(readFileSync(join(FIXTURE, 'CLAUDE.md'), 'utf8'))
  assert.equal(
    rules.map((r) => [r.heading, r.text]),
    [
      ['Testing', 'Run npm test before every commit.'],
      ['Testing', 'Never mock the database in integration tests: use the docker compose Postgres.'],
      ['Testing', 'Tests live beside the code they test, named <name>.test.ts.'],
      ['Style', 'Money is stored in integer cents. This includes refunds and fees.'],
    ],
  )
  assert.is(rules[0]!.line, 7)
})

test('a project folder: one decision per ADR with its chain, rejected ones shelved, rules as conventions and constraints; a second run writes nothing', async () => {
  const dir = project()
  const kernel = createKernel({ storage: memoryStorage() })
  const report = await ingest(kernel, ['.'], { cwd: dir })
  assert.equal(report.problems, [])
  assert.is(report.created, 4 + 4 + 2 + 2 + 2, JSON.stringify(report.steps, null, 1))
  assert.is(report.chains, 1)
  assert.ok(report.files.includes(join('docs', 'adr', 'ADR-4.md')))
  assert.not.ok(
    report.files.some((f) => f.includes('guides')),
    'a numbered file outside a decisions folder is no ADR',
  )

  const facts = await kernel.memory.list({ status: 'all' })
  const liquibase = byTitle(facts, 'Use Liquibase for database migrations')!
  const flyway = byTitle(facts, 'Use Flyway for database migrations')!
  assert.is(liquibase.status, 'superseded')
  assert.is(liquibase.supersededBy, flyway.id)
  assert.is(flyway.source, 'adr-0004')
  assert.match(
    flyway.body,
    /^Supersedes ADR-2\. We use Flyway[\s\S]*\nWhy: Liquibase's XML changelogs[\s\S]*\nHow to apply: Add migrations as V<n>__<name>\.sql files/,
  )
  const graphql = byTitle(facts, 'Use GraphQL for the public API')!
  assert.is(graphql.status, 'forgotten')
  assert.match(graphql.forgottenReason!, /ADR 3 is rejected/)
  assert.is(
    byTitle(facts, 'Never mock the database in integration tests: use the docker compose Postgres.')!.type,
    'constraint',
  )
  assert.is(byTitle(facts, 'Money is stored in integer cents.')!.type, 'convention')
  assert.equal(byTitle(facts, 'Dates are ISO 8601 strings in UTC.')!.tags, ['cursor-rules', 'api'])
  assert.equal(byTitle(facts, 'Always link the issue a change resolves.')!.tags, ['copilot-instructions', 'reviews'])
  const found = await kernel.memory.search({ query: 'which tool runs database migrations' })
  assert.is(found.hits[0]?.fact.id, flyway.id)

  const again = await ingest(kernel, ['.'], { cwd: dir })
  assert.is(again.created, 0)
  assert.ok(
    again.steps.every((s) => s.action === 'unchanged'),
    JSON.stringify(again.steps),
  )
})

test('a changed source supersedes what it said before; a dry run says so and writes nothing', async () => {
  const dir = project()
  const kernel = createKernel({ storage: memoryStorage() })
  await ingest(kernel, ['.'], { cwd: dir })
  const claude = join(dir, 'CLAUDE.md')
  writeFileSync(
    claude,
    readFileSync(claude, 'utf8').replace(
      'Run `npm test` before every commit.',
      'Run `npm test` before every commit. Run `npm run lint` too.',
    ),
  )
  const before = (await kernel.memory.list({ status: 'all' })).length

  const dry = await ingest(kernel, ['CLAUDE.md'], { cwd: dir, dryRun: true })
  assert.ok(dry.dryRun)
  const planned = dry.steps.find((s) => s.action === 'created')!
  assert.is(planned.title, 'Run npm test before every commit.')
  assert.ok(planned.supersedes, 'the dry run names what it would supersede')
  assert.is((await kernel.memory.list({ status: 'all' })).length, before)
  const fresh = await ingest(createKernel({ storage: memoryStorage() }), ['docs/adr'], { cwd: dir, dryRun: true })
  assert.is(fresh.chains, 1, 'a dry run on an empty memory names the chain the ADRs state')
  assert.is(
    fresh.steps.find((s) => s.title === 'Use Flyway for database migrations')!.supersedes,
    `${join('docs', 'adr', '0002-use-liquibase-for-migrations.md')}:1`,
  )

  const real = await ingest(kernel, ['CLAUDE.md'], { cwd: dir })
  assert.is(real.created, 1)
  const facts = await kernel.memory.list({ status: 'all' })
  const old = facts.find((f) => f.id === planned.supersedes)!
  assert.is(old.status, 'superseded')
  assert.match(facts.find((f) => f.id === old.supersededBy)!.body, /npm run lint/)
})

test('errors name the path or the file and line; nothing is written for them', async () => {
  const dir = project()
  const kernel = createKernel({ storage: memoryStorage() })
  try {
    await ingest(kernel, ['no-such-folder'], { cwd: dir })
    assert.unreachable('a missing path is an error')
  } catch (error) {
    assert.match((error as Error).message, /no-such-folder does not exist/)
  }
  writeFileSync(
    join(dir, 'docs', 'adr', '0005-broken.md'),
    '---\nstatus: [unclosed\n---\n# Broken\n\n## Decision\n\nWe will never see this decision stored.\n',
  )
  const report = await ingest(kernel, ['docs/adr'], { cwd: dir })
  assert.equal(
    report.problems.map((p) => [p.file, p.line]),
    [[join('docs', 'adr', '0005-broken.md'), 2]],
  )
  assert.match(report.problems[0]!.message, /front matter is not YAML/)
  assert.not.ok((await kernel.memory.list({ status: 'all' })).some((f) => f.title === 'Broken'))
  const skipped = await ingest(kernel, ['docs/guides/01-getting-started.md'], { cwd: dir })
  assert.is(skipped.created, 1, 'a file named on its own is read as an ADR when numbered')
})

test.run()
