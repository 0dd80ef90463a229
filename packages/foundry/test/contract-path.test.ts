import { execFileSync } from 'node:child_process'
import { symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { call, cleanup, cli, connect, finding, tempDir } from './helpers.js'

test('contract_validate {path} over stdio: files outside the project, links out, a FIFO and devices are refused at once, quoting nothing', async () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  const outside = tempDir()
  writeFileSync(join(outside, 'secret.json'), 'API_KEY=sk-live-123 not json')
  symlinkSync(join(outside, 'secret.json'), join(root, 'linked.json'))
  execFileSync('mkfifo', [join(root, 'pipe.json')])
  writeFileSync(join(root, 'finding.json'), JSON.stringify(finding))
  const conn = await connect(root)
  try {
    for (const path of [
      '/etc/shadow',
      '/proc/self/environ',
      '/dev/zero',
      join(outside, 'secret.json'),
      '../' + outside.split('/').pop() + '/secret.json',
      'linked.json',
      'pipe.json',
      'pipe.json',
      'pipe.json',
    ]) {
      const started = Date.now()
      const result = await call(conn.client, 'contract_validate', { schema: 'finding.v1', path })
      assert.ok(result.isError, `${path}: ${result.text}`)
      assert.match(result.text, /outside the project|not a regular file/, result.text)
      for (const leak of ['root:', 'HOME=', 'PATH=', 'sk-live', 'API_KEY'])
        assert.not.ok(result.text.includes(leak), `${path} leaks ${leak}: ${result.text}`)
      assert.ok(Date.now() - started < 30_000, `${path} blocked the server for ${Date.now() - started} ms`) // a read that blocks (a FIFO, /dev/zero) never answers
    }
    assert.is(
      (await call(conn.client, 'contract_validate', { schema: 'finding.v1', path: 'finding.json' })).text,
      'VALID against finding.v1',
      'the server still answers, and reads files inside',
    )
  } finally {
    await conn.close()
    cleanup()
  }
})

test.run()
