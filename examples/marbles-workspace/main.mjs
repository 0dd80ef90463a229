// The starter Marbles workspace, end to end, with the built `marbles` bin:
//   1. a project (foundry init's initProject) and `marbles serve` owning its state;
//   2. `marbles run audit --detach` dispatches the workflow and returns its run id at once;
//   3. `marbles watch <runId>`, a second process started from another folder, replays and follows
//      the run to its end and exits 0;
//   4. the fact is in memory, the artifact on the blackboard, the schedule and the monitor fired;
//   5. `marbles mcp`, as .mcp.json starts it, with the MCP SDK's Client: dispatch_workflow and
//      dispatch_agent (Claude Code: the stand-in in fake-bin/ on PATH), both watched to their end
//      with `marbles watch` from other processes, and get_run reads the agent's answer.
// Exits non-zero when any of it is wrong.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { initProject, openProject } from '@foundry/project'

const here = dirname(fileURLToPath(import.meta.url))
const pkg = createRequire(import.meta.url).resolve('@foundry/marbles/package.json')
const bin = join(dirname(pkg), JSON.parse(readFileSync(pkg, 'utf8')).bin.marbles)
const source = join(here, '.foundry', 'marbles')
const root = mkdtempSync(join(tmpdir(), 'marbles-example-'))
await initProject({ root })
const elsewhere = mkdtempSync(join(tmpdir(), 'marbles-example-cwd-')) // a folder that is not the project, and no one else's
const marbles = (...args) =>
  spawnSync(process.execPath, [bin, '--root', root, ...args], { encoding: 'utf8', cwd: elsewhere })

// 1. The owner of the state: executes dispatched runs, ticks the schedule, polls the monitor.
const serve = spawn(process.execPath, [bin, '--root', root, '--source', source, 'serve'], {
  stdio: ['ignore', 'inherit', 'pipe'],
})
let serveLog = ''
serve.stderr.on('data', (d) => ((serveLog += d), process.stderr.write(d)))
const stopped = new Promise((resolve) => serve.on('exit', (code) => resolve(code)))
try {
  while (!serveLog.includes('marbles serve:')) await new Promise((r) => setTimeout(r, 50))
  const list = marbles('--source', source, 'list')
  assert.equal(list.status, 0, list.stderr)
  assert.match(list.stdout, /workflow audit · Audit an area/)
  assert.match(list.stdout, /agent reviewer · anthropic\/claude-sonnet-4-5/)
  assert.match(list.stdout, /schedule every-second → tick · every 1s/)
  assert.match(list.stdout, /monitor timeout-decided → tick · every 200 ms/)

  // 2. Dispatch: the run id comes back at once.
  const run = marbles(
    '--source',
    source,
    'run',
    'audit',
    '--input',
    JSON.stringify({ area: 'checkout', timeoutSeconds: 30 }),
    '--detach',
  )
  assert.equal(run.status, 0, run.stderr)
  const runId = run.stdout.trim()
  assert.match(runId, /^run-[0-9a-z]{26}$/)
  console.log(`dispatched audit as ${runId}`)

  // 3. Watch it from a second process, in another folder, to the end.
  const watch = spawnSync(process.execPath, [bin, '--root', root, 'watch', runId], { encoding: 'utf8', cwd: elsewhere })
  process.stdout.write(watch.stdout)
  assert.equal(watch.status, 0, `marbles watch exited ${watch.status}: ${watch.stderr}`)
  assert.match(watch.stdout, /step fetch error: attempt 1 failed: Error: upstream answered 503 \(retry in 50 ms\)/)
  assert.match(watch.stdout, /step fetch ended/)
  assert.match(watch.stdout, new RegExp(`run ${runId} complete\\n$`))

  // 4. What the steps left behind, read through the project like any consumer.
  const project = await openProject({ root })
  try {
    const hits = await project.kernel.memory.search({ query: 'checkout API timeout' })
    assert.match(hits.text, /The checkout API timeout is 30 seconds/)
    const board = await project.kernel.blackboard.read({ wave: runId })
    assert.equal(board.artifacts[0]?.schema, 'finding.v1')
    console.log(`fact in memory; ${board.artifacts[0].file} on the blackboard under ${runId}`)
  } finally {
    await project.close()
  }
  // The schedule ticks every second and the monitor polls every 200 ms: wait until both have fired (bounded at 60 s).
  const completedTicks = () =>
    JSON.parse(marbles('runs', '--json').stdout).runs.filter((r) => r.name === 'tick' && r.status === 'complete')
  const fired = () =>
    /monitor timeout-decided: dispatched tick/.test(serveLog) &&
    /schedule every-second \(tick [^)]*\): dispatched tick/.test(serveLog) &&
    completedTicks().length >= 2
  for (const deadline = Date.now() + 60_000; !fired() && Date.now() < deadline; )
    await new Promise((r) => setTimeout(r, 100))
  const ticks = completedTicks()
  assert.ok(ticks.length >= 2, `the schedule and the monitor dispatched tick (${ticks.length} runs)`)
  assert.match(serveLog, /monitor timeout-decided: dispatched tick/)
  assert.match(serveLog, /schedule every-second \(tick [^)]*\): dispatched tick/)
  console.log(`schedule and monitor fired: ${ticks.length} tick runs`)
} finally {
  serve.kill('SIGINT')
}
assert.equal(await stopped, 0, 'marbles serve stops cleanly on Ctrl-C')

// 5. The MCP server the way .mcp.json configures it (the bin for `marbles`, this project as --root).
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
const config = JSON.parse(readFileSync(join(here, '.mcp.json'), 'utf8')).mcpServers.marbles
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [bin, '--root', root, ...config.args.map((a) => (a === '.foundry/marbles' ? source : a))],
  cwd: here,
  env: { ...process.env, PATH: `${join(here, 'fake-bin')}:${process.env.PATH}` },
  stderr: 'inherit',
})
const client = new Client({ name: 'marbles-example', version: '0.0.0' })
await client.connect(transport)
try {
  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args })
    assert.ok(!result.isError, `${name}: ${result.content[0]?.text}`)
    return result.structuredContent
  }
  const listed = await call('list_config', {})
  assert.deepEqual(
    listed.agents.map((a) => a.id),
    ['reviewer', 'summarizer'],
  )
  const flow = await call('dispatch_workflow', { name: 'tick', input: { from: 'mcp' } })
  const agent = await call('dispatch_agent', { agent: 'summarizer', prompt: 'Summarize the checkout audit.' })
  assert.equal(agent.kind, 'agent')
  assert.equal(agent.session.provider, 'claude-code')
  console.log(`dispatched over MCP: tick as ${flow.runId}, summarizer as ${agent.runId}`)
  for (const runId of [flow.runId, agent.runId]) {
    const watch = spawnSync(process.execPath, [bin, '--root', root, 'watch', runId], {
      encoding: 'utf8',
      cwd: elsewhere,
    })
    process.stdout.write(watch.stdout)
    assert.equal(watch.status, 0, `marbles watch ${runId} exited ${watch.status}: ${watch.stderr}`)
  }
  const answer = await call('get_run', { runId: agent.runId })
  assert.equal(answer.status, 'completed')
  assert.match(
    answer.text,
    /checkout timeout decision \(30 s\) is in memory; foundry tools: foundry/,
    'the memory index led the prompt; foundry mcp was in its config',
  )
  assert.equal(answer.usage.costUsd, 0.0042)
  console.log(`summarizer: ${answer.text}`)
} finally {
  await client.close()
}
console.log('marbles-workspace example: ok')
