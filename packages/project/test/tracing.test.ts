import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject, readProjectConfig, tracesUrl } from '../src/index.js'
import { cleanup, tempProject, thrown } from './helpers.js'

const test = suite('tracing: where Marbles sends run spans')
test.after(cleanup)

test('config.json tracing.otlpEndpoint wins; else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is; else OTEL_EXPORTER_OTLP_ENDPOINT; else off', () => {
  assert.is(
    tracesUrl({ otlpEndpoint: 'http://collector:4318/' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' }),
    'http://collector:4318/v1/traces',
  )
  assert.is(
    tracesUrl(
      {},
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4318/custom', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' },
    ),
    'http://t:4318/custom',
  )
  assert.is(tracesUrl({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318' }), 'http://base:4318/v1/traces')
  assert.is(tracesUrl({}, {}), undefined)
})

test('an open project carries its traces URL; a bad tracing key is one line naming the file and the shape', async () => {
  const root = tempProject({ storage: { kind: 'fs' }, tracing: { otlpEndpoint: 'http://127.0.0.1:4318' } })
  const project = await openProject({ root })
  assert.is(project.tracesUrl, 'http://127.0.0.1:4318/v1/traces')
  await project.close()
  for (const tracing of [{ otlpEndpoint: 'not a url' }, { endpoint: 'http://x' }, 'http://x']) {
    const error = await thrown(() => readProjectConfig(tempProject({ tracing })))
    assert.is(error.code, 'INVALID_INPUT')
    assert.match(
      error.message,
      /config\.json: tracing must be \{ "otlpEndpoint": "<http\(s\) URL of an OTLP collector>" \}/,
    )
  }
})

test.run()
