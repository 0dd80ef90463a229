import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EVENT_KINDS, estimateTokens, sanitizeName } from '@foundry/kernel'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  call,
  cleanup,
  cli,
  connect,
  finding,
  flyway,
  readText,
  tempDir,
  tempProject,
  type Connection,
} from './helpers.js'

/** A folder layout holding two runbooks and a project contract, imported into each project. */
function seedFolder(): string {
  const dir = tempProject()
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, '.foundry', path, '..'), { recursive: true })
    writeFileSync(join(dir, '.foundry', path), text)
  }
  write(
    'runbooks/deploy-production.md',
    '---\ntitle: Deploy to production\ntrigger: deploy, release to prod\n---\n\n1. Tag the release.\n2. Run `make deploy`.\n',
  )
  write(
    'runbooks/rotate-api-keys.md',
    '---\ntitle: Rotate third-party API keys\n---\n\nRotate each key in the vault, then redeploy.\n',
  )
  write(
    'contracts/adr.v1.json',
    JSON.stringify({ type: 'object', required: ['decision'], properties: { decision: { type: 'string' } } }),
  )
  return dir
}

for (const storage of ['fs', 'sqlite'] as const) {
  const test = suite<{ root: string; conn: Connection }>(`tools over stdio (${storage} storage)`)
  test.before(async (ctx) => {
    ctx.root = tempDir()
    const init = cli(['init', '--storage', storage], { cwd: ctx.root })
    assert.is(init.code, 0, init.stderr)
    const imported = cli(['import', seedFolder()], { cwd: ctx.root })
    assert.is(imported.code, 0, imported.stderr)
    ctx.conn = await connect(ctx.root)
  })
  test.after(async (ctx) => {
    await ctx.conn.close()
    cleanup()
  })

  const indexTokens = async (conn: Connection) => {
    return estimateTokens(await readText(conn.client, 'foundry://memory/index'))
  }

  test('memory_write creates, reports the index, and dedups', async ({ conn }) => {
    const created = await call(conn.client, 'memory_write', flyway)
    assert.not.ok(created.isError)
    const tokens = await indexTokens(conn)
    assert.is(created.text, `created: fact-0001\nIndex: 1/1 facts listed, ~${tokens} tokens, 0 omitted over budget.`)
    assert.equal(created.structured, {
      action: 'created',
      id: 'fact-0001',
      index: { listed: 1, total: 1, omitted: 0, tokens, budget: 4000 },
    })
    const again = await call(conn.client, 'memory_write', flyway)
    assert.is(
      again.text,
      `exists: fact-0001 (identical fact, nothing written)\nIndex: 1/1 facts listed, ~${tokens} tokens, 0 omitted over budget.`,
    )
    assert.is(again.structured?.action, 'duplicate')
  })

  test('memory_write supersedes a fact on the same subject', async ({ conn }) => {
    await call(conn.client, 'memory_write', {
      title: 'API timeout is 30 seconds',
      body: 'Upstream gateways cut at 35 s.',
      type: 'constraint',
    })
    const newer = await call(conn.client, 'memory_write', {
      title: 'API timeout is 60 seconds',
      body: 'The gateway limit was raised to 65 s.',
      type: 'constraint',
      tags: ['api', 'gateway'],
    })
    const tokens = await indexTokens(conn)
    assert.is(
      newer.text,
      `created: fact-0003 (supersedes fact-0002)\nIndex: 2/2 facts listed, ~${tokens} tokens, 0 omitted over budget.`,
    )
    assert.is(newer.structured?.supersedes, 'fact-0002')
  })

  test('memory_search returns the seed block, text only (no structuredContent), and the no-hit line', async ({
    conn,
  }) => {
    const hit = await call(conn.client, 'memory_search', { query: 'flyway migrations' })
    assert.is(
      hit.text,
      '### fact-0001 · decision · confidence high\n**Persistence layer uses Flyway, not Liquibase**\n' +
        `${flyway.body}\n_source: adr-0007 · scope: project_`,
    )
    assert.is(
      hit.structured,
      undefined,
      'clients that forward structuredContent in place of the text would hide the facts',
    )
    const typed = await call(conn.client, 'memory_search', { query: 'timeout', type: 'decision' })
    assert.is(typed.text, 'No stored fact matches "timeout". Memory holds 2 active facts.')
    assert.is(typed.structured, undefined)
    const limited = await call(conn.client, 'memory_search', { query: 'timeout gateway flyway', limit: 1 })
    assert.is(limited.text.match(/^### fact-/gm)?.length, 1)
    assert.not.match(limited.text, /Weaker matches/)
  })

  test('memory_index rebuilds INDEX.md and reports its budget', async ({ conn, root }) => {
    const result = await call(conn.client, 'memory_index')
    const tokens = await indexTokens(conn)
    const path = storage === 'fs' ? join(root, '.foundry', 'memory', 'INDEX.md') : result.structured?.path
    assert.is(result.text, `Rebuilt ${path}\n2/2 facts listed, ~${tokens} tokens, 0 omitted.`)
    assert.equal(result.structured?.index, { listed: 2, total: 2, omitted: 0, tokens, budget: 4000 })
    if (storage === 'fs')
      assert.match(readFileSync(path, 'utf8'), /fact-0001 · high · Persistence layer uses Flyway, not Liquibase/)
  })

  test('runbook_list and runbook_get', async ({ conn }) => {
    const list = await call(conn.client, 'runbook_list')
    assert.is(
      list.text,
      '- **deploy-production** — Deploy to production\n  trigger: deploy, release to prod\n- **rotate-api-keys** — Rotate third-party API keys',
    )
    assert.equal(list.structured?.runbooks, [
      { slug: 'deploy-production', title: 'Deploy to production', trigger: 'deploy, release to prod' },
      { slug: 'rotate-api-keys', title: 'Rotate third-party API keys' },
    ])
    const one = await call(conn.client, 'runbook_get', { slug: 'deploy-production' })
    assert.is(
      one.text,
      '# Deploy to production\n\n_trigger: deploy, release to prod_\n\n1. Tag the release.\n2. Run `make deploy`.\n',
    )
    assert.equal(one.structured, {
      slug: 'deploy-production',
      title: 'Deploy to production',
      trigger: 'deploy, release to prod',
    })
    const unknown = await call(conn.client, 'runbook_get', { slug: 'deploy' })
    assert.ok(unknown.isError)
    assert.is(
      unknown.text,
      'runbook_get failed: Unknown runbook "deploy". Available: deploy-production, rotate-api-keys.',
    )
  })

  test('contract_validate: INVALID and VALID, with data or a path relative to the root', async ({ conn, root }) => {
    const { failureScenario: _, ...incomplete } = finding
    const invalid = await call(conn.client, 'contract_validate', { schema: 'finding.v1', data: incomplete })
    assert.not.ok(invalid.isError)
    assert.is(invalid.text, 'INVALID against finding.v1:\n- missing required property "failureScenario"')
    assert.equal(invalid.structured, {
      schema: 'finding.v1',
      valid: false,
      violations: ['missing required property "failureScenario"'],
    })
    writeFileSync(join(root, 'finding.json'), JSON.stringify(finding))
    const valid = await call(conn.client, 'contract_validate', { schema: 'finding.v1', path: 'finding.json' })
    assert.is(valid.text, 'VALID against finding.v1')
    const project = await call(conn.client, 'contract_validate', { schema: 'adr.v1', data: { decision: 'Flyway' } })
    assert.is(project.text, 'VALID against adr.v1')
    const missing = await call(conn.client, 'contract_validate', { schema: 'finding.v1', path: 'nope.json' })
    assert.is(
      missing.text,
      `contract_validate failed: Cannot read ${join(root, 'nope.json')}: ENOENT; pass a JSON file inside the project, or the artifact itself as data.`,
    )
  })

  test('blackboard_write rejects without writing, then writes and reports the cost', async ({ conn, root }) => {
    const { failureScenario: _, ...incomplete } = finding
    const rejected = await call(conn.client, 'blackboard_write', {
      wave: 'audit',
      agent: 'appsec-reviewer',
      schema: 'finding.v1',
      data: incomplete,
    })
    assert.ok(rejected.isError)
    assert.is(
      rejected.text,
      'Rejected: artifact does not satisfy finding.v1.\n- missing required property "failureScenario"\nFix and call again.',
    )
    assert.equal(rejected.structured, { written: false, violations: ['missing required property "failureScenario"'] })
    const empty = await call(conn.client, 'blackboard_read', { wave: 'audit' })
    assert.is(empty.text, 'No artifacts in wave "audit".')

    const written = await call(conn.client, 'blackboard_write', {
      wave: 'audit',
      agent: 'appsec-reviewer',
      schema: 'finding.v1',
      data: finding,
    })
    assert.not.ok(written.isError)
    const serialized = `${JSON.stringify({ ...finding, schema: 'finding.v1', producedBy: 'appsec-reviewer' }, null, 2)}\n`
    const bytes = Buffer.byteLength(serialized)
    const path = storage === 'fs' ? '.foundry/blackboard/audit/appsec-reviewer.json' : written.structured?.path
    assert.is(
      written.text,
      `Wrote ${path} (${bytes} bytes, ~${estimateTokens(serialized)} tokens).\nReturn to your caller ONLY this path and a summary of at most 300 tokens.`,
    )
    if (storage === 'fs') assert.is(readFileSync(join(root, path), 'utf8'), serialized)
  })

  test('blackboard_write encodes wave and agent (one to one, inside the blackboard)', async ({ conn }) => {
    const result = await call(conn.client, 'blackboard_write', {
      wave: '../../etc',
      agent: 'a b/c',
      schema: 'finding.v1',
      data: finding,
    })
    assert.not.ok(result.isError)
    assert.is(sanitizeName('../../etc'), '%2E.%2F..%2Fetc')
    if (storage === 'fs') assert.is(result.structured?.path, '.foundry/blackboard/%2E.%2F..%2Fetc/a%20b%2Fc.json')
    const read = await call(conn.client, 'blackboard_read', { wave: '../../etc' })
    assert.is(read.structured?.artifacts[0].agent, 'a%20b%2Fc')
  })

  test('blackboard_read: summaries by default, whole artifacts with full', async ({ conn }) => {
    const serialized = `${JSON.stringify({ ...finding, schema: 'finding.v1', producedBy: 'appsec-reviewer' }, null, 2)}\n`
    const summary = await call(conn.client, 'blackboard_read', { wave: 'audit' })
    assert.is(
      summary.text,
      `- **appsec-reviewer.json** · schema finding.v1 · by appsec-reviewer · ~${estimateTokens(serialized)} tokens\n  Six findings, two high. Access control on /api/orders is the blocking one.`,
    )
    assert.equal(summary.structured, {
      wave: 'audit',
      artifacts: [
        {
          file: 'appsec-reviewer.json',
          wave: 'audit',
          agent: 'appsec-reviewer',
          schema: 'finding.v1',
          producedBy: 'appsec-reviewer',
          tokens: estimateTokens(serialized),
          summary: finding.summary,
          version: 1,
        },
      ],
    })
    const full = await call(conn.client, 'blackboard_read', { wave: 'audit', agent: 'appsec-reviewer', full: true })
    assert.is(full.text, `### appsec-reviewer.json\n\`\`\`json\n${serialized.trimEnd()}\n\`\`\``)
    const nobody = await call(conn.client, 'blackboard_read', { wave: 'audit', agent: 'nobody' })
    assert.is(nobody.text, 'No artifacts in wave "audit" by nobody.')
  })

  test('token_report: the seed layout, with the events this session recorded', async ({ conn }) => {
    const { text, structured } = await call(conn.client, 'token_report')
    const f = structured!
    const seed = Object.fromEntries(
      Object.entries(f.events).filter(([kind]) => (EVENT_KINDS as readonly string[]).includes(kind)),
    )
    assert.equal(seed, {
      memory_write: 4,
      memory_search: 3,
      contract_violation: 2,
      contract_valid: 2,
      blackboard_write: 2,
    })
    assert.ok(
      f.events.runbook_get! >= 1 && f.events.blackboard_read! >= 1,
      'every operation is timed too (runbook_get, blackboard_read, …), outside the seed line',
    )
    assert.is(f.facts, 2)
    assert.is(f.runbooks, 2)
    assert.is(f.artifacts, 2)
    assert.is(
      text,
      [
        '# Foundry token report',
        '',
        `- Memory index: ~${f.indexTokens} tokens of a 4000 budget (always in context)`,
        `- Facts stored: 2, ~${f.factTokens} tokens total (retrieved on demand only)`,
        `- Runbooks: 2, ~${f.runbookTokens} tokens (retrieved on demand only)`,
        `- Blackboard artifacts: ~${f.artifactTokens} tokens (never enter context wholesale)`,
        '- Recorded events: memory_write=4, memory_search=3, contract_violation=2, contract_valid=2, blackboard_write=2',
        '',
        `Loading all memory eagerly would cost ~${f.factTokens + f.runbookTokens + f.artifactTokens} tokens per session; the index-first path costs ~${f.indexTokens}.`,
      ].join('\n'),
    )
  })

  test('resources: one per runbook, its trigger as description; project contracts listed', async ({ conn }) => {
    const { resources } = await conn.client.listResources()
    assert.equal(
      resources.slice(2).map((r) => ({ ...r })),
      [
        {
          uri: 'foundry://runbooks/deploy-production',
          name: 'Runbook: Deploy to production',
          description: 'deploy, release to prod',
          mimeType: 'text/markdown',
        },
        {
          uri: 'foundry://runbooks/rotate-api-keys',
          name: 'Runbook: Rotate third-party API keys',
          mimeType: 'text/markdown',
        },
      ],
    )
    const runbook = await conn.client.readResource({ uri: 'foundry://runbooks/rotate-api-keys' })
    assert.equal(runbook.contents, [
      {
        uri: 'foundry://runbooks/rotate-api-keys',
        mimeType: 'text/markdown',
        text: '# Rotate third-party API keys\n\nRotate each key in the vault, then redeploy.\n',
      },
    ])
    assert.match(
      await readText(conn.client, 'foundry://contracts'),
      '- `adr.v1` (project)\n- `facts.proposal.v1` (built-in)\n- `finding.v1` (built-in)\n- `handoff.v1` (built-in)\n- `review.v1` (built-in)\n',
    )
    assert.match(
      await readText(conn.client, 'foundry://memory/index'),
      '- fact-0001 · high · Persistence layer uses Flyway, not Liquibase',
    )
  })

  test('nothing but diagnostics-free stderr', ({ conn }) => {
    assert.is(conn.stderr(), '')
  })

  test.run()
}
