import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject } from '@foundry/project'
import { call, cleanup, cli, connect, tempDir } from './helpers.js'

const cents = { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' }
const invoices = { title: 'Invoices are numbered per year', body: 'INV-2026-0001, then on.', type: 'convention' }
const refunds = {
  title: 'Refunds need 2 approvals',
  body: 'Why: fraud.\nHow to apply: ask finance first.',
  type: 'decision',
  confidence: 'high',
}

/** Proposals queued as a capture run queues them: through the project's kernel, on real files. */
async function propose(root: string, facts: object[]): Promise<void> {
  const project = await openProject({ cwd: root })
  try {
    await project.kernel.review.propose(facts, { author: 'capture', origin: 'session-7' })
  } finally {
    await project.close()
  }
}

for (const storage of ['fs', 'sqlite'] as const) {
  const test = suite(`foundry review and memory_review (${storage} storage)`)
  test.after(() => cleanup())

  test('foundry review lists the queue, then accepts, rejects and edits without asking; --json gives the records', async () => {
    const root = tempDir()
    assert.is(cli(['init', '--storage', storage], { cwd: root }).code, 0)
    assert.is(cli(['review'], { cwd: root }).stdout, 'No proposals wait for review.\n')
    await propose(root, [cents, invoices, refunds])
    const listed = cli(['review'], { cwd: root })
    assert.match(
      listed.stdout,
      /^### proposal-0001 · convention · confidence medium · by capture from session-7\n\*\*Money is stored in integer cents\*\*\nNever floats\.\n_source: conversation · scope: project_\n\n### proposal-0002 /,
    )
    assert.is(
      cli(['search', 'integer cents'], { cwd: root }).stdout.startsWith('No stored fact matches'),
      true,
      'a proposal is not searchable',
    )

    const accepted = cli(['review', '--accept', 'proposal-0001'], { cwd: root })
    assert.is(accepted.code, 0, accepted.stderr)
    assert.match(
      accepted.stdout,
      /^created: fact-0001\nIndex: 1\/1 facts listed, ~\d+ tokens, 0 omitted over budget\.\n$/,
    )
    const rejected = cli(['review', '--reject', 'proposal-0002', '--reason', 'numbered per month'], { cwd: root })
    assert.is(rejected.stdout, 'rejected: proposal-0002 "Invoices are numbered per year" (nothing written to memory)\n')
    const edited = cli(
      [
        'review',
        '--edit',
        'proposal-0003',
        '--body',
        'Why: fraud.\nHow to apply: ask finance and legal.',
        '--confidence',
        'medium',
      ],
      { cwd: root },
    )
    assert.is(edited.code, 0, edited.stderr)
    assert.match(
      edited.stdout,
      /^edited: proposal-0003 \(still waiting for review\)\n\n### proposal-0003 · decision · confidence medium/,
    )
    assert.match(edited.stdout, /ask finance and legal/)

    const all = JSON.parse(cli(['review', '--status', 'all', '--json'], { cwd: root }).stdout) as {
      proposals: Array<{ id: string; status: string; factId?: string; reason?: string }>
    }
    assert.equal(
      all.proposals.map((p) => [p.id, p.status, p.factId ?? p.reason ?? '']),
      [
        ['proposal-0001', 'accepted', 'fact-0001'],
        ['proposal-0002', 'rejected', 'numbered per month'],
        ['proposal-0003', 'proposed', ''],
      ],
    )
    assert.is(
      cli(['list'], { cwd: root }).stdout,
      'fact-0001 · convention · medium · Money is stored in integer cents\n',
    )
    const twice = cli(['review', '--accept', 'proposal-0001'], { cwd: root })
    assert.equal(
      [twice.code, twice.stderr],
      [1, 'error: proposal-0001 is already accepted as fact-0001; nothing to do\n'],
    )
    const bad = cli(['review', '--edit', 'proposal-0003', '--scope', 'everywhere'], { cwd: root })
    assert.is(bad.code, 1)
    assert.match(bad.stderr, /^error: Invalid edit of proposal-0003: scope .*\n$/)
    assert.is(
      cli(['review', '--edit', 'proposal-0003'], { cwd: root }).stderr,
      'error: --edit needs what to change: --title, --body, --type, --tags, --confidence or --scope\n',
    )
    assert.is(cli(['review', '--reason', 'x'], { cwd: root }).stderr, 'error: --reason goes with --reject <id>\n')
  })

  test('memory_review over stdio: list, edit, accept (answering as memory_write), reject', async () => {
    const root = tempDir()
    assert.is(cli(['init', '--storage', storage], { cwd: root }).code, 0)
    const conn = await connect(root)
    try {
      assert.not.ok(
        (await call(conn.client, 'memory_write', { ...refunds, title: 'Refunds need 3 approvals' })).isError,
      )
      await propose(root, [refunds, cents])
      const listed = await call(conn.client, 'memory_review', { action: 'list' })
      assert.equal(
        (listed.structured?.proposals as Array<{ id: string }>).map((p) => p.id),
        ['proposal-0001', 'proposal-0002'],
      )
      const edited = await call(conn.client, 'memory_review', {
        action: 'edit',
        id: 'proposal-0002',
        changes: { tags: ['money'] },
      })
      assert.not.ok(edited.isError, edited.text)
      const accepted = await call(conn.client, 'memory_review', { action: 'accept', id: 'proposal-0001' })
      assert.not.ok(accepted.isError, accepted.text)
      assert.match(accepted.text, /^created: fact-0002 \(supersedes fact-0001\)\n/)
      assert.equal(
        [accepted.structured?.proposal, accepted.structured?.action, accepted.structured?.supersedes],
        ['proposal-0001', 'created', 'fact-0001'],
      )
      const rejected = await call(conn.client, 'memory_review', { action: 'reject', id: 'proposal-0002' })
      assert.match(rejected.text, /^rejected: proposal-0002 /)
      const missing = await call(conn.client, 'memory_review', { action: 'accept' })
      assert.equal(
        [missing.isError, missing.text],
        [
          true,
          "memory_review failed: Invalid arguments: accept needs id, the proposal's (proposal-NNNN, as list shows it)",
        ],
      )
      assert.is((await call(conn.client, 'memory_review', { action: 'list' })).text, 'No proposals wait for review.')
    } finally {
      await conn.close()
    }
  })

  test.run()
}
