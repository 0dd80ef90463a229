import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, tempDir } from './helpers.js'

const runbook = suite('foundry runbook add|edit|remove')
runbook.after(cleanup)

function project(storage: 'fs' | 'sqlite'): string {
  const root = tempDir()
  assert.is(cli(['init', '--storage', storage], { cwd: root }).code, 0)
  return root
}

for (const storage of ['fs', 'sqlite'] as const) {
  runbook(`${storage}: add, list, edit with flags, remove`, () => {
    const root = project(storage)
    const added = cli(
      [
        'runbook',
        'add',
        'deploy-production',
        '--title',
        'Deploy to production',
        '--trigger',
        'deploy, release to prod',
        '--body',
        '1. Run the tests.\n2. Tag the release.',
      ],
      { cwd: root },
    )
    assert.is(added.code, 0, added.stderr)
    assert.match(added.stdout, /^added: runbook deploy-production \(.+\)\n$/)
    assert.is(
      cli(['runbooks'], { cwd: root }).stdout,
      '- **deploy-production** — Deploy to production\n  trigger: deploy, release to prod\n',
    )
    assert.is(
      cli(['runbooks', 'deploy-production'], { cwd: root }).stdout,
      '# Deploy to production\n\n_trigger: deploy, release to prod_\n\n1. Run the tests.\n2. Tag the release.\n',
    )

    const stdin = cli(['runbook', 'add', 'rotate-keys', '--title', 'Rotate API keys'], {
      cwd: root,
      input: '1. Rotate.\n2. Revoke the old key.\n',
    })
    assert.is(stdin.code, 0, stdin.stderr)
    assert.match(cli(['runbooks', 'rotate-keys'], { cwd: root }).stdout, /2\. Revoke the old key\.\n$/)

    const edited = cli(['runbook', 'edit', 'deploy-production', '--trigger', '', '--body', '-'], {
      cwd: root,
      input: '1. Run the tests.\n2. Tag.\n3. Watch the dashboards.',
    })
    assert.is(edited.code, 0, edited.stderr)
    assert.match(edited.stdout, /^updated: runbook deploy-production /)
    assert.is(
      cli(['runbooks', 'deploy-production'], { cwd: root }).stdout,
      '# Deploy to production\n\n1. Run the tests.\n2. Tag.\n3. Watch the dashboards.\n',
      '--trigger "" removed it',
    )
    assert.is(
      cli(['runbook', 'edit', 'deploy-production', '--title', 'Deploy to production'], { cwd: root }).stdout,
      'unchanged: runbook deploy-production (nothing written)\n',
    )

    const removed = cli(['runbook', 'remove', 'deploy-production'], { cwd: root })
    assert.is(removed.stdout, 'removed: runbook deploy-production\n')
    const again = cli(['runbook', 'remove', 'deploy-production'], { cwd: root })
    assert.is(again.code, 1)
    assert.is(again.stderr, 'error: Unknown runbook "deploy-production". Available: rotate-keys.\n')
    assert.is(cli(['runbooks'], { cwd: root }).stdout, '- **rotate-keys** — Rotate API keys\n')
  })
}

runbook('fs: the runbook file is the documented format; add --file reads one, front matter and all', () => {
  const root = project('fs')
  writeFileSync(
    join(root, 'incident.md'),
    '---\ntitle: Handle a payment incident\ntrigger: [payment incident, refunds failing]\n---\n\n1. Page the on-call.\n2. Freeze refunds.\n',
  )
  const added = cli(['runbook', 'add', 'payment-incident', '--file', 'incident.md'], { cwd: root })
  assert.is(added.code, 0, added.stderr)
  assert.is(
    readFileSync(join(root, '.foundry', 'runbooks', 'payment-incident.md'), 'utf8'),
    '---\ntitle: Handle a payment incident\ntrigger: payment incident, refunds failing\n---\n\n1. Page the on-call.\n2. Freeze refunds.\n',
  )
  const flagWins = cli(['runbook', 'add', 'other', '--file', 'incident.md', '--title', 'Another title'], { cwd: root })
  assert.is(flagWins.code, 0, flagWins.stderr)
  assert.match(
    readFileSync(join(root, '.foundry', 'runbooks', 'other.md'), 'utf8'),
    /^---\ntitle: Another title\ntrigger: payment incident, refunds failing\n/,
  )
})

runbook(
  'edit with no flag opens $EDITOR on the runbook file text; a bad save keeps the edit and names the field',
  () => {
    const root = project('sqlite')
    assert.is(
      cli(['runbook', 'add', 'deploy', '--title', 'Deploy', '--trigger', 'deploy', '--body', '1. Tag.'], { cwd: root })
        .code,
      0,
    )
    // The "editor" is a shell command that rewrites the file it is given.
    const editor = `sed -i -e 's/^title: Deploy$/title: Deploy to production/' -e 's/^1. Tag.$/1. Tag.\\n2. Push./'`
    const edited = cli(['runbook', 'edit', 'deploy'], { cwd: root, env: { EDITOR: editor, VISUAL: '' } })
    assert.is(edited.code, 0, edited.stderr)
    assert.is(
      cli(['runbooks', 'deploy'], { cwd: root }).stdout,
      '# Deploy to production\n\n_trigger: deploy_\n\n1. Tag.\n2. Push.\n',
    )
    assert.is(
      cli(['runbook', 'edit', 'deploy'], { cwd: root, env: { EDITOR: 'true', VISUAL: '' } }).stdout,
      'unchanged: runbook deploy (nothing written)\n',
    )

    const blank = cli(['runbook', 'edit', 'deploy'], { cwd: root, env: { EDITOR: "sed -i '/^title:/d'", VISUAL: '' } })
    assert.is(blank.code, 1)
    assert.match(
      blank.stderr,
      /^error: Invalid runbook: missing required property "title" \(your edit is kept in .+deploy\.md\)\n$/,
    )
    const none = cli(['runbook', 'edit', 'deploy'], { cwd: root, env: { EDITOR: '', VISUAL: '' } })
    assert.is(none.stderr, 'error: No editor: set $EDITOR, or pass --title, --trigger, --body or --file\n')
  },
)

runbook('validation: one line naming the field and the fix, exit 1, nothing stored', () => {
  const root = project('fs')
  const cases: Array<[string[], string]> = [
    [
      ['add', 'Deploy Prod', '--title', 'Deploy', '--body', '1. Go.'],
      'error: Invalid runbook: slug has the wrong form: use lowercase letters, digits, . _ and -, starting with a letter or digit, at most 80 characters\n',
    ],
    [['add', 'deploy', '--body', '1. Go.'], 'error: Invalid runbook: missing required property "title"\n'],
    [
      ['add', 'deploy', '--title', 'Deploy', '--body', '  '],
      'error: Invalid runbook: body must not be empty: write the steps, one numbered line each\n',
    ],
    [
      ['add', 'deploy', '--title', 'x'.repeat(201), '--body', '1. Go.'],
      'error: Invalid runbook: title must be at most 200 characters\n',
    ],
    [
      ['add', 'deploy', '--title', 'Deploy', '--body', '1. Go.', '--file', 'x.md'],
      'error: Pass either --body or --file, not both\n',
    ],
    [['edit', 'nope', '--title', 'X'], 'error: Unknown runbook "nope". Available: none.\n'],
  ]
  for (const [args, stderr] of cases) {
    const result = cli(['runbook', ...args], { cwd: root })
    assert.is(result.code, 1, args.join(' '))
    assert.is(result.stderr, stderr)
  }
  assert.match(cli(['runbooks'], { cwd: root }).stdout, /^No runbooks yet\./)
  assert.is(cli(['runbook', 'add', 'deploy', '--title', 'Deploy', '--body', '1. Go.'], { cwd: root }).code, 0)
  const twice = cli(['runbook', 'add', 'deploy', '--title', 'Deploy', '--body', '1. Go.'], { cwd: root })
  assert.is(
    twice.stderr,
    'error: Runbook "deploy" exists: change it with foundry runbook edit deploy, or remove it first\n',
  )
  const hand = join(root, '.foundry', 'runbooks', 'hand.md')
  writeFileSync(hand, '---\ntitle: Written by hand\n---\n\n1. Works too.\n')
  assert.match(
    cli(['runbooks'], { cwd: root }).stdout,
    /\*\*hand\*\* — Written by hand/,
    'a file written into .foundry/runbooks/ is a runbook',
  )
})

runbook.run()
