import { spawnSync } from 'node:child_process'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { BIN, call, cleanup, cli, connect, tempDir } from './helpers.js'

/*
 * A fact file that stops parsing, or something that is not a file at all, must never cost what a
 * user wrote: its id stays taken (the next write gets a new one), the file stays as it is, and
 * nothing hangs. Through the real bin, as a user meets it.
 */

const test = suite('broken fact files: never overwritten, never hanging')
test.after(cleanup)

const factFile = (root: string, id: string) => join(root, '.foundry', 'memory', 'facts', `${id}.md`)

/** A project with fact-0001 and fact-0002. */
function project(): string {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  for (const [title, body] of [
    ['Money is stored in integer cents', 'Never floats.'],
    ['Dates are stored in UTC', 'Converted at the edge.'],
  ] as const) {
    const write = cli(['write', '--title', title, '--body', body, '--type', 'convention'], { cwd: root })
    assert.is(write.code, 0, write.stderr)
  }
  return root
}

const breakages: Array<[string, (text: string) => string | Buffer]> = [
  ['a type no fact has (type: conventionz)', (text) => text.replace(/^type: convention$/m, 'type: conventionz')],
  ['a YAML typo', (text) => text.replace(/^type: convention$/m, 'type: [unclosed')],
  ['an empty file', () => ''],
  ['binary bytes', () => Buffer.from([0x00, 0xff, 0xfe, 0x01, 0x9c, 0x00, 0x42])],
]

for (const [what, breakIt] of breakages) {
  test(`a fact file broken by ${what} keeps its id and its bytes: the next write is fact-0003`, () => {
    const root = project()
    const path = factFile(root, 'fact-0002')
    writeFileSync(path, breakIt(readFileSync(path, 'utf8')))
    const broken = readFileSync(path)

    const write = cli(
      ['write', '--title', 'Logs are JSON lines', '--body', 'One object a line.', '--type', 'convention'],
      { cwd: root },
    )
    assert.is(write.code, 0, write.stderr)
    assert.match(write.stdout, /created: fact-0003/)
    // The write reads only its candidates (the write catalog); reading every fact meets the broken file and reports it.
    assert.match(cli(['list'], { cwd: root }).stderr, /fact-0002/, 'the broken file is reported')
    assert.equal(readFileSync(path), broken, 'the broken file is untouched')
    assert.match(cli(['show', 'fact-0003'], { cwd: root }).stdout, /Logs are JSON lines/)
  })
}

test('a fact broken while a server runs: the same server gives the next write a new id', async () => {
  const root = project()
  const server = await connect(root)
  try {
    assert.match((await call(server.client, 'memory_search', { query: 'UTC' })).text, /fact-0002/) // the server has read every fact
    const path = factFile(root, 'fact-0002')
    writeFileSync(path, readFileSync(path, 'utf8').replace(/^type: convention$/m, 'type: conventionz'))
    const broken = readFileSync(path)
    const written = await call(server.client, 'memory_write', {
      title: 'Logs are JSON lines',
      body: 'One object a line.',
      type: 'convention',
    })
    assert.not.ok(written.isError, written.text)
    assert.match(written.text, /fact-0003/)
    assert.equal(readFileSync(path), broken)
  } finally {
    await server.close()
  }
})

test('a FIFO named like a fact hangs nothing: list and write answer, the FIFO is reported and kept, doctor --fix quarantines it', () => {
  const root = project()
  const path = factFile(root, 'fact-0003')
  assert.is(spawnSync('mkfifo', [path]).status, 0, 'mkfifo')
  // Bounded: a hang is a failure here, not a stuck suite.
  const bounded = (args: string[]) => {
    const run = spawnSync(process.execPath, [BIN, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000, input: '' })
    assert.is(run.signal, null, `foundry ${args.join(' ')} hung`)
    return run
  }
  const list = bounded(['list'])
  assert.is(list.status, 0, list.stderr)
  assert.match(list.stdout, /fact-0001/)
  assert.match(list.stderr, /fact-0003.*not a regular file/)

  const write = bounded([
    'write',
    '--title',
    'Logs are JSON lines',
    '--body',
    'One object a line.',
    '--type',
    'convention',
  ])
  assert.is(write.status, 0, write.stderr)
  assert.match(write.stdout, /created: fact-0004/, 'the id the FIFO holds is not given away')
  assert.ok(statSync(path).isFIFO(), 'the FIFO is left in place')

  const doctor = bounded(['doctor'])
  assert.is(doctor.status, 1, doctor.stdout)
  assert.match(doctor.stdout, /fact-0003/)
  const fix = bounded(['doctor', '--fix'])
  assert.match(fix.stdout, /quarantine/)
  assert.ok(statSync(join(root, '.foundry', 'quarantine', 'fact-0003.md')).isFIFO())
})

test.run()
