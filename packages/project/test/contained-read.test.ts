import { execFileSync } from 'node:child_process'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isFoundryError } from '@foundry/kernel'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject } from '../src/index.js'
import { cleanup, tempDir, tempProject } from './helpers.js'

const test = suite('contract_validate {path}: only regular files inside the project, below a size limit')
test.after(cleanup)

const finding = {
  title: 'Charge retried twice',
  severity: 'high',
  failureScenario: 'A timeout after the charge went through retries it.',
}

/** contract_validate's answer, or its error, with the text a caller would see. */
async function validate(root: string, path: string): Promise<{ code?: string; text: string }> {
  const project = await openProject({ root })
  try {
    const started = Date.now()
    const out = await project.kernel.contracts.validate({ schema: 'finding.v1', path }).then(
      (r) => ({ text: r.text }),
      (e: unknown) => ({ code: isFoundryError(e) ? e.code : 'THROWN', text: (e as Error).message }),
    )
    assert.ok(Date.now() - started < 30_000, `blocked for ${Date.now() - started} ms`) // a read that blocks (a FIFO, /dev/zero) never answers
    return out
  } finally {
    await project.close()
  }
}

test('a file inside the project validates, by relative or absolute path', async () => {
  const root = tempProject()
  mkdirSync(join(root, 'out'))
  writeFileSync(join(root, 'out', 'finding.json'), JSON.stringify(finding))
  assert.is((await validate(root, 'out/finding.json')).text, 'VALID against finding.v1')
  assert.is((await validate(root, join(root, 'out', 'finding.json'))).text, 'VALID against finding.v1')
})

test('paths outside the project are refused and their content never quoted: /etc/shadow, /proc/self/environ, ../, a link out', async () => {
  const root = tempProject()
  const outside = tempDir()
  writeFileSync(join(outside, 'secret.json'), 'SECRET-TOKEN=hunter2 not json')
  symlinkSync(join(outside, 'secret.json'), join(root, 'link.json'))
  symlinkSync('/etc/passwd', join(root, 'passwd.json'))
  for (const path of [
    '/etc/shadow',
    '/etc/passwd',
    '/proc/self/environ',
    '../' + outside.split('/').pop() + '/secret.json',
    join(outside, 'secret.json'),
    'link.json',
    'passwd.json',
  ]) {
    const { code, text } = await validate(root, path)
    assert.is(code, 'INVALID_INPUT', `${path}: ${text}`)
    assert.match(text, /outside the project/, text)
    for (const leak of ['root:', 'HOME=', 'PATH=', 'SECRET', 'hunter2'])
      assert.not.ok(text.includes(leak), `${path} leaks "${leak}": ${text}`)
  }
})

test('an invalid JSON file inside the project: the error gives the position, not the content', async () => {
  const root = tempProject()
  writeFileSync(join(root, 'bad.json'), 'token=abc123secret')
  const { code, text } = await validate(root, 'bad.json')
  assert.is(code, 'INVALID_INPUT')
  assert.match(text, /bad\.json is not valid JSON/)
  assert.not.ok(text.includes('abc123'), text)
})

test('a FIFO, a folder or a device is refused as not a regular file, at once; an oversize file is refused by its size', async () => {
  const root = tempProject()
  execFileSync('mkfifo', [join(root, 'pipe.json')])
  mkdirSync(join(root, 'dir.json'))
  symlinkSync('/dev/zero', join(root, 'zero.json'))
  for (const path of ['pipe.json', 'dir.json']) {
    const { code, text } = await validate(root, path)
    assert.is(code, 'INVALID_INPUT', text)
    assert.match(text, /not a regular file/, text)
  }
  assert.is((await validate(root, 'zero.json')).code, 'INVALID_INPUT', 'a link to /dev/zero leads outside')
  writeFileSync(join(root, 'big.json'), `{"title":"${'x'.repeat(5 * 1024 * 1024)}"}`)
  const big = await validate(root, 'big.json')
  assert.is(big.code, 'INVALID_INPUT', big.text)
  assert.match(big.text, /big\.json is \d+ bytes; the limit is \d+/, big.text)
})

test('a missing file is NOT_FOUND', async () => {
  const root = tempProject()
  const { code, text } = await validate(root, 'nope.json')
  assert.is(code, 'NOT_FOUND', text)
})

test.run()
