import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, tempDir } from './helpers.js'
import { startInitialized, textOf, toolCall, type RawServer } from './raw.js'

/**
 * The attack suite's containment table (issue 14): every path-bearing input (tools, resources, CLI
 * arguments, config keys, hook events) tried with `../`, absolute paths, encoded separators,
 * symlinks, FIFOs and device files. An escape is any file created or changed outside the project,
 * or the content of a file outside it appearing in an answer; a case that hangs past its timeout
 * counts too. The figures (cases tried, escapes) are printed.
 */
const SECRET = `SECRET-${process.pid}-${Date.now()}`
const HOOK_BIN = fileURLToPath(new URL('../../hooks/dist/bin/foundry-hook.cjs', import.meta.url))
const finding = { title: 'T', severity: 'high', summary: 'S.', failureScenario: 'F.' }

interface World {
  base: string
  root: string
  outside: string
}

/** A project beside a folder `outside` holding secrets, with links from the project into it, a FIFO and a symlinked blackboard wave. */
function world(storage: 'fs' | 'sqlite'): World {
  const base = tempDir()
  const root = join(base, 'project')
  const outside = join(base, 'outside')
  mkdirSync(root)
  mkdirSync(outside)
  writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`)
  writeFileSync(
    join(outside, 'secret.json'),
    JSON.stringify({ title: SECRET, severity: SECRET, summary: SECRET, failureScenario: SECRET }),
  )
  assert.is(cli(['init', '--storage', storage], { cwd: root }).code, 0)
  symlinkSync(join(outside, 'secret.json'), join(root, 'link.json'))
  symlinkSync(outside, join(root, 'linkdir'))
  mkdirSync(join(root, '.foundry', 'blackboard'), { recursive: true })
  symlinkSync(outside, join(root, '.foundry', 'blackboard', 'evil'))
  mkdirSync(join(root, '.foundry', 'runbooks'), { recursive: true })
  symlinkSync(join(outside, 'secret.txt'), join(root, '.foundry', 'runbooks', 'leak.md'))
  spawnSync('mkfifo', [join(root, 'fifo.json')])
  return { base, root, outside }
}

/** Every file under `dir` with its size and mtime: what "nothing changed outside" compares. */
function snapshot(dir: string): string {
  const out: string[] = []
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name)
      const stats = statSync(path)
      out.push(`${relative(dir, path)} ${stats.size} ${stats.mtimeMs}`)
      if (entry.isDirectory()) walk(path)
    }
  }
  walk(dir)
  return out.sort().join('\n')
}

interface Case {
  surface: string
  input: string
  attack: string
  /** Runs the attack; what the caller would see (answer text, stdout and stderr). */
  run: () => Promise<string>
  /** A known gap, with why: the case is listed and run, but does not fail the suite. */
  skip?: string
}

function hook(name: string, event: object, env: Record<string, string> = {}): Promise<string> {
  const { FOUNDRY_ROOT, CLAUDE_PROJECT_DIR, ...inherited } = process.env
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HOOK_BIN, name], {
      env: { ...inherited, FOUNDRY_HOOK_SERVER: 'off', ...env },
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve(`${out}\nexit ${code}`)
    })
    child.stdin.end(JSON.stringify(event))
  })
}

function cases(w: World, server: () => RawServer, storage: 'fs' | 'sqlite'): Case[] {
  let id = 1000
  const tool = (name: string, args: Record<string, unknown>) => async () => {
    const n = ++id
    await server().send(toolCall(n, name, args))
    return textOf(await server().answer(n, 15_000))
  }
  const resource = (uri: string) => async () => {
    const n = ++id
    await server().send({ jsonrpc: '2.0', id: n, method: 'resources/read', params: { uri } })
    const answer = await server().answer(n, 15_000)
    return JSON.stringify(answer)
  }
  const rel = relative(w.root, w.outside)
  const paths: [string, string][] = [
    ['../', `${rel}/secret.json`],
    ['../ deeper', '.foundry/../../outside/secret.json'],
    ['absolute', join(w.outside, 'secret.json')],
    ['absolute system file', '/etc/passwd'],
    ['absolute /proc', '/proc/self/environ'],
    ['encoded separators', `%2e%2e%2f${'outside'}%2fsecret.json`],
    ['encoded, mixed', '..%2Foutside%2Fsecret.json'],
    ['backslashes', '..\\outside\\secret.json'],
    ['file URL', `file://${join(w.outside, 'secret.json')}`],
    ['symlink to a file outside', 'link.json'],
    ['symlinked folder', 'linkdir/secret.json'],
    ['FIFO', 'fifo.json'],
    ['device /dev/zero', '/dev/zero'],
    ['device /dev/urandom', '/dev/urandom'],
    ['NUL byte', 'link.json\u0000.json'],
  ]
  const names: [string, string][] = [
    ['../', '../../outside'],
    ['absolute', w.outside],
    ['encoded separators', '..%2F..%2Foutside'],
    ['dots only', '..'],
    ['backslashes', '..\\..\\outside'],
    ['NUL byte', 'a\u0000/../../outside'],
    ['symlinked wave folder', 'evil'],
  ]
  const out: Case[] = []
  for (const [attack, path] of paths)
    out.push({
      surface: 'tool',
      input: 'contract_validate.path',
      attack,
      run: tool('contract_validate', { schema: 'finding.v1', path }),
    })
  for (const [attack, name] of names) {
    out.push({
      surface: 'tool',
      input: 'blackboard_write.wave',
      attack,
      run: tool('blackboard_write', { wave: name, agent: 'a', schema: 'finding.v1', data: finding }),
    })
    out.push({
      surface: 'tool',
      input: 'blackboard_write.agent',
      attack,
      run: tool('blackboard_write', { wave: 'w', agent: name, schema: 'finding.v1', data: finding }),
    })
    out.push({
      surface: 'tool',
      input: 'blackboard_read.wave',
      attack,
      run: tool('blackboard_read', { wave: name, full: true }),
    })
    out.push({
      surface: 'tool',
      input: 'blackboard_read.agent',
      attack,
      run: tool('blackboard_read', { wave: 'w', agent: name, full: true }),
    })
    out.push({ surface: 'tool', input: 'runbook_get.slug', attack, run: tool('runbook_get', { slug: name }) })
    out.push({
      surface: 'tool',
      input: 'memory_forget.id',
      attack,
      run: tool('memory_forget', { id: name, reason: 'r' }),
    })
    out.push({
      surface: 'tool',
      input: 'memory_search.scope',
      attack,
      run: tool('memory_search', { query: 'secret', scope: `module:${name}` }),
    })
    out.push({
      surface: 'tool',
      input: 'blackboard_write.schema',
      attack,
      run: tool('blackboard_write', { wave: 'w', agent: 'a', schema: name, data: finding }),
    })
  }
  out.push({
    surface: 'tool',
    input: 'runbook_get.slug',
    attack: 'symlinked runbook file',
    run: tool('runbook_get', { slug: 'leak' }),
  })
  for (const [attack, suffix] of [
    ['../', `../../${rel}/secret`],
    ['encoded separators', '%2e%2e%2f%2e%2e%2foutside%2fsecret'],
    ['absolute', w.outside],
    ['symlinked runbook file', 'leak'],
  ] as const)
    out.push({
      surface: 'resource',
      input: 'foundry://runbooks/<slug>',
      attack,
      run: resource(`foundry://runbooks/${suffix}`),
    })
  out.push({
    surface: 'resource',
    input: 'uri',
    attack: 'file URL',
    run: resource(`file://${join(w.outside, 'secret.txt')}`),
  })
  // CLI arguments (the CLI runs as its user, who may read any file: containment is about where it writes).
  for (const [attack, name] of names.slice(0, 5)) {
    out.push({
      surface: 'cli',
      input: 'foundry blackboard write <wave> <agent>',
      attack,
      run: async () => {
        writeFileSync(join(w.root, 'finding.json'), JSON.stringify(finding))
        const r = cli(['blackboard', 'write', name, name, 'finding.v1', 'finding.json'], { cwd: w.root })
        return r.stdout + r.stderr
      },
    })
  }
  // Hook events.
  const event = (extra: object) => ({
    session_id: 's',
    transcript_path: join(w.outside, 'secret.txt'),
    cwd: w.root,
    hook_event_name: 'SubagentStop',
    permission_mode: 'default',
    ...extra,
  })
  for (const [attack, name] of names) {
    out.push({
      surface: 'hook',
      input: 'subagent-firewall agent_type / agent_id',
      attack,
      run: () =>
        hook(
          'subagent-firewall',
          event({
            stop_hook_active: false,
            agent_id: name,
            agent_type: name,
            agent_transcript_path: join(w.outside, 'secret.txt'),
            last_assistant_message: 'word '.repeat(4000),
          }),
        ),
    })
  }
  out.push({
    surface: 'hook',
    input: 'prompt-context cwd',
    attack: '../',
    run: () =>
      hook('prompt-context', {
        ...event({}),
        hook_event_name: 'UserPromptSubmit',
        cwd: join(w.root, '..', 'outside'),
        prompt: 'what is the secret of the project?',
      }),
  })
  out.push({
    surface: 'hook',
    input: 'precompact transcript_path',
    attack: 'absolute',
    run: () =>
      hook('precompact', { ...event({}), hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' }),
  })
  out.push({
    surface: 'hook',
    input: 'session-start cwd',
    attack: 'symlinked folder',
    run: () =>
      hook('session-start', {
        ...event({}),
        hook_event_name: 'SessionStart',
        cwd: join(w.root, 'linkdir'),
        source: 'startup',
      }),
  })
  // Config keys.
  if (storage === 'sqlite')
    for (const [attack, path, skip] of [
      ['../', `../${rel}/evil.db`, undefined],
      ['symlinked folder', 'linkdir/evil.db', undefined],
      [
        'absolute',
        join(w.outside, 'evil.db'),
        "by design: an absolute storage path is the config author's explicit choice of a place outside the project (adapter-sqlite contain.ts)",
      ],
    ] as const)
      out.push({
        surface: 'config',
        input: 'storage.path (sqlite)',
        attack,
        ...(skip && { skip }),
        run: async () => {
          const config = join(w.root, '.foundry', 'config.json')
          const saved = readFileSync(config, 'utf8')
          writeFileSync(config, JSON.stringify({ ...JSON.parse(saved), storage: { kind: 'sqlite', path } }))
          try {
            const r = cli(['list'], { cwd: w.root })
            return r.stdout + r.stderr
          } finally {
            writeFileSync(config, saved)
          }
        },
      })
  return out
}

for (const storage of ['fs', 'sqlite'] as const) {
  const test = suite(`containment (${storage})`)
  test.after(cleanup)

  test(`every path-bearing input, every attack: nothing written or read outside the project (${storage})`, async () => {
    const w = world(storage)
    let before = snapshot(w.outside)
    let server = await startInitialized(w.root)
    const table = cases(w, () => server, storage)
    const escapes: string[] = []
    const known: string[] = []
    for (const c of table) {
      if (!server.alive()) server = await startInitialized(w.root)
      const label = `${c.surface} ${c.input} × ${c.attack}`
      let seen: string
      try {
        seen = await c.run()
      } catch (error) {
        seen = `ERROR ${(error as Error).message}`
      }
      const problems: string[] = []
      if (seen.includes(SECRET)) problems.push('leaked the secret')
      if (/root:[^:]*:\d+:/.test(seen)) problems.push('leaked /etc/passwd')
      if (/\bHOME=\//.test(seen)) problems.push('leaked the environment')
      if (seen.startsWith('ERROR no answer')) problems.push('hung')
      const after = snapshot(w.outside)
      if (after !== before)
        problems.push(
          `changed outside: ${after
            .split('\n')
            .filter((l) => !before.split('\n').includes(l))
            .join(', ')}`,
        )
      if (problems.length)
        (c.skip ? known : escapes).push(`${label}: ${problems.join('; ')}${c.skip ? ` (known: ${c.skip})` : ''}`)
      before = after // each case is judged on what it changed itself
    }
    await server.close()
    console.log(
      `  containment (${storage}): ${table.length} cases tried, ${escapes.length} escapes${known.length ? `, ${known.length} known gaps` : ''}`,
    )
    for (const line of known) console.log(`    known gap: ${line}`)
    assert.equal(escapes, [], escapes.join('\n'))
  })

  test.run()
}
