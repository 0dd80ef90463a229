import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError } from '../src/index.js'
import { kernelFor } from './helpers.js'

const deploy = {
  slug: 'deploy-production',
  title: 'Deploy to production',
  trigger: 'deploy',
  body: '1. Run the tests.\n2. Tag.',
}
const rotate = { slug: 'rotate-api-keys', title: 'Rotate API keys', body: '1. Rotate.' }

/** The FoundryError `fn` rejects with. */
async function failure(fn: () => Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await fn()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a rejection')
}

test('remove deletes the runbook and records runbook_remove', async () => {
  const k = kernelFor()
  await k.runbooks.put(deploy)
  await k.runbooks.put(rotate)
  await k.runbooks.remove('deploy-production')
  assert.equal(
    (await k.runbooks.list()).runbooks.map((r) => r.slug),
    ['rotate-api-keys'],
  )
  const events = await k.storage.readEvents()
  assert.ok(
    events.some((e) => e.kind === 'runbook_remove' && e.data?.status === 'ok'),
    'traced as runbook_remove',
  )
})

test('remove of an unknown slug is NOT_FOUND listing the slugs; a malformed slug too, touching nothing', async () => {
  const k = kernelFor()
  await k.runbooks.put(deploy)
  await k.runbooks.put(rotate)
  for (const slug of ['deploy', '../etc/passwd', 'Deploy Production']) {
    const error = await failure(() => k.runbooks.remove(slug))
    assert.ok(isFoundryError(error, 'NOT_FOUND'), slug)
    assert.is(error.message, `Unknown runbook "${slug}". Available: deploy-production, rotate-api-keys.`)
  }
  await k.runbooks.remove('rotate-api-keys')
  await k.runbooks.remove('deploy-production')
  assert.is(
    (await failure(() => k.runbooks.remove('deploy-production'))).message,
    'Unknown runbook "deploy-production". Available: none.',
  )
})

test('put names the field at fault and how to fix it', async () => {
  const k = kernelFor()
  const cases: Array<[unknown, string]> = [
    [
      { ...deploy, slug: 'Deploy Prod' },
      'Invalid runbook: slug has the wrong form: use lowercase letters, digits, . _ and -, starting with a letter or digit, at most 80 characters',
    ],
    [{ slug: 'x', body: '1. Go.' }, 'Invalid runbook: missing required property "title"'],
    [
      { ...deploy, title: '   ' },
      'Invalid runbook: title must not be blank: name the procedure (e.g. "Deploy to production")',
    ],
    [{ ...deploy, body: '\n \n' }, 'Invalid runbook: body must not be empty: write the steps, one numbered line each'],
    [{ ...deploy, trigger: 'x'.repeat(501) }, 'Invalid runbook: trigger must be at most 500 characters'],
    [{ ...deploy, steps: [] }, 'Invalid runbook: unknown property "steps" (remove it)'],
  ]
  for (const [input, message] of cases) {
    const error = await failure(() => k.runbooks.put(input))
    assert.ok(isFoundryError(error, 'INVALID_INPUT'), message)
    assert.is(error.message, message)
  }
  assert.equal((await k.runbooks.list()).runbooks, [], 'nothing stored')
})

test.run()
