import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError } from '../src/index.js'
import { isTriggeredBy } from '../src/runbooks.js'
import { kernelFor } from './helpers.js'

const deploy = {
  slug: 'deploy-production',
  title: 'Deploy to production',
  trigger: 'deploy, release to prod',
  body: '1. Run the tests.\n2. Tag.',
}
const rotate = {
  slug: 'rotate-api-keys',
  title: 'Rotate third-party API keys',
  body: '# Rotate third-party API keys\n\nSteps.',
}

test('list shows slug, title and trigger exactly as the seed; none gives the seed hint', async () => {
  assert.is(
    (await kernelFor().runbooks.list()).text,
    'No runbooks yet. Write one after any task worth repeating.',
    'the kernel names no tool of a host',
  )
  const k = kernelFor(
    {},
    { hints: { noRunbooks: 'Create one with the runbook-author skill after any task worth repeating.' } },
  )
  assert.is(
    (await k.runbooks.list()).text,
    'No runbooks yet. Create one with the runbook-author skill after any task worth repeating.',
    'the host adds its own',
  )
  await k.runbooks.put(rotate)
  await k.runbooks.put(deploy)
  assert.is(
    (await k.runbooks.list()).text,
    '- **deploy-production** — Deploy to production\n  trigger: deploy, release to prod\n- **rotate-api-keys** — Rotate third-party API keys',
  )
})

test('get returns the markdown; an unknown slug lists the available ones', async () => {
  const k = kernelFor()
  await k.runbooks.put(deploy)
  await k.runbooks.put(rotate)
  assert.is(
    (await k.runbooks.get({ slug: 'deploy-production' })).text,
    '# Deploy to production\n\n_trigger: deploy, release to prod_\n\n1. Run the tests.\n2. Tag.\n',
  )
  assert.is((await k.runbooks.get({ slug: 'rotate-api-keys' })).text, '# Rotate third-party API keys\n\nSteps.\n')
  for (const slug of ['nope', '../etc/passwd']) {
    try {
      await k.runbooks.get({ slug })
      assert.unreachable()
    } catch (error) {
      assert.ok(isFoundryError(error, 'NOT_FOUND'))
      assert.is((error as Error).message, `Unknown runbook "${slug}". Available: deploy-production, rotate-api-keys.`)
    }
  }
})

test('triggers match whole words and phrases, case-insensitively', async () => {
  assert.ok(isTriggeredBy(deploy, 'Please DEPLOY the API'))
  assert.ok(isTriggeredBy(deploy, 'can we release to prod today?'))
  assert.not.ok(isTriggeredBy(deploy, 'the deployment failed'), 'deploy is not a word of deployment')
  assert.not.ok(isTriggeredBy(deploy, 'release the prod notes'), 'phrases match in order')
  assert.not.ok(isTriggeredBy({ trigger: undefined }, 'deploy'), 'no trigger, never triggered')
  const k = kernelFor()
  await k.runbooks.put(deploy)
  await k.runbooks.put(rotate)
  assert.equal(
    (await k.runbooks.triggeredBy('time to deploy')).map((r) => r.slug),
    ['deploy-production'],
  )
})

test('put validates the runbook', async () => {
  const k = kernelFor()
  try {
    await k.runbooks.put({ slug: 'Bad Slug', title: '', body: 'x' } as never)
    assert.unreachable()
  } catch (error) {
    assert.ok(isFoundryError(error, 'INVALID_INPUT'))
    assert.match((error as Error).message, /slug has the wrong form/)
  }
})

test.run()
