// The workspace environment through Varlock, through the built bin: .env.schema with its decorators,
// .env, .env.local and the current environment's file loaded, defaults set, errors naming the variable only.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { HERE, marbles, newProject } from './helpers.js'

const SCHEMA = `# @defaultSensitive=false @defaultRequired=false @currentEnv=$MARBLES_TEST_ENV
# ---
# @type=enum(development, test, production)
MARBLES_TEST_ENV=development
# The service's token.
# @required @sensitive @type=string(minLength=8)
MARBLES_TEST_TOKEN=
# @type=enum(low, high)
MARBLES_TEST_LEVEL=low
# @type=port
MARBLES_TEST_PORT=
`

/** A workspace folder holding `files` and one workflow that returns the variables it sees. */
function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'marbles-varlock-'))
  const api = join(HERE, '..', 'dist', 'index.js')
  writeFileSync(
    join(dir, 'flow.ts'),
    `import { workflow } from ${JSON.stringify(api)}
export const env = workflow({ name: 'env', run: () => ({ token: process.env.MARBLES_TEST_TOKEN ?? 'unset', level: process.env.MARBLES_TEST_LEVEL ?? 'unset', env: process.env.MARBLES_TEST_ENV ?? 'unset' }) })
`,
  )
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

const result = (stdout: string) =>
  JSON.parse(/^result: (.*)$/m.exec(stdout)?.[1] ?? 'null') as Record<string, string> | null

test('a .env setting a required variable satisfies it; a schema default reaches process.env; .env.local and the current environment’s file are loaded', async () => {
  const root = await newProject('fs')
  const base = { MARBLES_TEST_TOKEN: '', MARBLES_TEST_LEVEL: '', MARBLES_TEST_ENV: '' }
  const source = workspace({ '.env.schema': SCHEMA, '.env': 'MARBLES_TEST_TOKEN=from-dot-env-1\n' })
  const run = marbles(['--root', root, '--source', source, 'run', 'env'], { env: base })
  assert.is(run.code, 0, run.stderr)
  assert.equal(result(run.stdout), { token: 'from-dot-env-1', level: 'low', env: 'development' })

  writeFileSync(join(source, '.env.local'), 'MARBLES_TEST_LEVEL=high\n')
  writeFileSync(join(source, '.env.test'), 'MARBLES_TEST_TOKEN=from-env-test-1\n')
  const local = marbles(['--root', root, '--source', source, 'run', 'env'], {
    env: { ...base, MARBLES_TEST_ENV: 'test' },
  })
  assert.is(local.code, 0, local.stderr)
  assert.equal(result(local.stdout), { token: 'from-env-test-1', level: 'high', env: 'test' })

  const given = marbles(['--root', root, '--source', source, 'run', 'env'], {
    env: { ...base, MARBLES_TEST_TOKEN: 'from-the-shell-1' },
  })
  assert.equal(result(given.stdout)?.token, 'from-the-shell-1', 'the process environment wins over the files')
})

test('a missing or invalid variable stops start-up with one line naming it, never its value; a broken schema names its file', async () => {
  const base = { MARBLES_TEST_TOKEN: '', MARBLES_TEST_PORT: '', MARBLES_TEST_ENV: '' }
  const source = workspace({ '.env.schema': SCHEMA })
  const missing = marbles(['--source', source, 'list'], { env: base })
  assert.is(missing.code, 1)
  assert.match(
    missing.stderr,
    /^error: Environment variable MARBLES_TEST_TOKEN is missing \(required by \S+\.env\.schema\)\n$/,
  )
  const short = marbles(['--source', source, 'list'], { env: { ...base, MARBLES_TEST_TOKEN: 's3cr3t' } })
  assert.is(short.code, 1)
  assert.match(
    short.stderr,
    /^error: Environment variable MARBLES_TEST_TOKEN is invalid \(\S+\.env\.schema\): [^\n]+\n$/,
  )
  assert.not.match(short.stderr, /s3cr3t/)
  writeFileSync(join(source, '.env.local'), 'MARBLES_TEST_PORT=99999-q7z\n')
  const port = marbles(['--source', source, 'list'], { env: { ...base, MARBLES_TEST_TOKEN: 'long-enough-token' } })
  assert.match(port.stderr, /^error: Environment variable MARBLES_TEST_PORT is invalid \(\S+\): [^\n]+\n$/)
  assert.not.match(port.stderr, /99999-q7z/)

  const broken = workspace({ '.env.schema': '# @type=nonesuch\nMARBLES_TEST_X=1\n' })
  const bad = marbles(['--source', broken, 'list'], { env: base })
  assert.is(bad.code, 1)
  assert.match(
    bad.stderr,
    /^error: Environment variable MARBLES_TEST_X is invalid \(\S+\): unknown data type: nonesuch\n$/,
  )
})

test('an env.schema.json alone is still read, with one deprecation line; its defaults reach process.env too', async () => {
  const root = await newProject('fs')
  const legacy = workspace({
    'env.schema.json': JSON.stringify({
      type: 'object',
      properties: { MARBLES_TEST_TOKEN: { type: 'string' }, MARBLES_TEST_LEVEL: { type: 'string', default: 'high' } },
      required: ['MARBLES_TEST_TOKEN'],
    }),
  })
  const run = marbles(['--root', root, '--source', legacy, 'run', 'env'], {
    env: { MARBLES_TEST_TOKEN: 'legacy-token-1', MARBLES_TEST_LEVEL: '' },
  })
  assert.is(run.code, 0, run.stderr)
  assert.equal(result(run.stdout), { token: 'legacy-token-1', level: 'high', env: 'unset' })
  assert.match(
    run.stderr,
    /^marbles: \S+env\.schema\.json is deprecated: declare the variables in \.env\.schema \(Varlock\) beside it$/m,
  )
})

test.run()
