// OpenTelemetry: each run and step a span, sent over OTLP/HTTP to a real receiver this test starts; off by default.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { BASIC, BIN, newProject } from './helpers.js'

interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  startTimeUnixNano: string
  endTimeUnixNano: string
  status?: { code?: number; message?: string }
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>
}

/** A tiny OTLP/HTTP receiver: every JSON export POSTed to /v1/traces, its spans flattened. */
async function receiver(): Promise<{ url: string; spans: OtlpSpan[]; requests: () => number; server: Server }> {
  const spans: OtlpSpan[] = []
  let requests = 0
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      requests++
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const payload = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }
        for (const resource of payload.resourceSpans)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans)
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, requests: () => requests, server }
}

/** Run the built bin to its end without blocking this process (the receiver answers meanwhile). */
function marblesAsync(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const {
    FORCE_COLOR: _,
    OTEL_EXPORTER_OTLP_ENDPOINT: __,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ___,
    ...base
  } = process.env
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

const attr = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : undefined)
}

test('config.json tracing.otlpEndpoint: each run a span, each step a child span; a failed run is an error span', async () => {
  const otlp = await receiver()
  try {
    const root = await newProject('fs')
    writeFileSync(
      join(root, '.foundry', 'config.json'),
      JSON.stringify({ storage: { kind: 'fs' }, tracing: { otlpEndpoint: otlp.url } }),
    )
    const ok = await marblesAsync(['--root', root, '--source', BASIC, 'run', 'hello', '--input', '{"who":"otel"}'])
    assert.is(ok.code, 0, ok.stderr)
    const runId = ok.stdout.split('\n')[0]!
    const run = otlp.spans.find((s) => s.name === 'marbles.run hello')
    assert.ok(run, `a run span arrived: ${otlp.spans.map((s) => s.name).join(', ')}`)
    assert.is(attr(run, 'marbles.run.id'), runId)
    assert.is(attr(run, 'marbles.run.status'), 'complete')
    assert.is(run.parentSpanId || undefined, undefined, 'a run is a root span')
    const step = otlp.spans.find((s) => s.name === 'marbles.step count')
    assert.ok(step, 'the step span arrived')
    assert.is(step.traceId, run.traceId)
    assert.is(step.parentSpanId, run.spanId, 'the step is the run’s child')
    assert.is(attr(step, 'marbles.step.attempt'), 1)
    assert.ok(
      BigInt(run.startTimeUnixNano) <= BigInt(step.startTimeUnixNano) &&
        BigInt(step.endTimeUnixNano) <= BigInt(run.endTimeUnixNano),
      'the step lies within the run',
    )

    const failed = await marblesAsync(['--root', root, '--source', BASIC, 'run', 'fails'])
    assert.is(failed.code, 1)
    const span = otlp.spans.find((s) => s.name === 'marbles.run fails')
    assert.ok(span)
    assert.is(span.status?.code, 2, 'STATUS_CODE_ERROR')
    assert.match(span.status?.message ?? '', /bad thing happened/)
  } finally {
    otlp.server.close()
  }
})

test('OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on; without it or the config, nothing is sent', async () => {
  const otlp = await receiver()
  try {
    const root = await newProject('sqlite')
    const off = await marblesAsync(['--root', root, '--source', BASIC, 'run', 'hello', '--input', '{"who":"quiet"}'])
    assert.is(off.code, 0, off.stderr)
    assert.is(otlp.requests(), 0, 'off by default: the process ended without exporting')
    const on = await marblesAsync(['--root', root, '--source', BASIC, 'run', 'hello', '--input', '{"who":"env"}'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    })
    assert.is(on.code, 0, on.stderr)
    assert.ok(
      otlp.spans.some((s) => s.name === 'marbles.run hello' && attr(s, 'marbles.run.id') === on.stdout.split('\n')[0]),
    )
    assert.ok(otlp.spans.some((s) => s.name === 'marbles.step count'))
  } finally {
    otlp.server.close()
  }
})

test.run()
