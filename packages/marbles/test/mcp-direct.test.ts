// A plain `marbles mcp` command line is served before commander loads (the bin's direct path); every
// other line goes through the program. Both give the same answers.
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { plainMcpArgs } from '../src/cli/mcp-stdio.js'
import { BIN } from './helpers.js'

test('plainMcpArgs takes mcp, global options around it and --harness after it, and nothing else', () => {
  assert.equal(plainMcpArgs(['--root', '/p', '--source', 'w', '--dry-run', 'mcp', '--harness', 'mock']), {
    global: { root: '/p', source: 'w', dryRun: true },
    harness: ['mock'],
  })
  assert.equal(plainMcpArgs(['mcp']), { global: {} })
  assert.equal(plainMcpArgs(['mcp', '--root', '/p', '--harness', 'a', '--harness', 'b']), {
    global: { root: '/p' },
    harness: ['a', 'b'],
  })
  for (const args of [
    ['mcp', '--http'],
    ['mcp', '--help'],
    ['--help', 'mcp'],
    ['--root=/p', 'mcp'],
    ['--root', '/p', '--root', '/q', 'mcp'],
    ['--root', '--debug', 'mcp'],
    ['--root'],
    ['mcp', '--harness'],
    ['mcp', 'extra'],
    ['mcp', 'mcp'],
    ['--harness', 'mock', 'mcp'],
    ['--root', '/p'],
    ['--port', '1', 'mcp'],
  ])
    assert.is(plainMcpArgs(args), undefined, args.join(' '))
})

test('a bad flag is the same one line on both paths', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'marbles-direct-'))
  const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', input: '' })
  const direct = run(['--journal-lines', 'lots', 'mcp'])
  const program = run(['--journal-lines=lots', 'mcp'])
  assert.is(direct.status, 1)
  assert.is(program.status, 1)
  assert.is(direct.stderr, 'error: --journal-lines must be a whole number of at least 100, got lots\n')
  assert.is(program.stderr, direct.stderr)
  assert.is(direct.stdout, '')
})

test.run()
