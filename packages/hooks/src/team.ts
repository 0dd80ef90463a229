import { lstat, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { HookName } from './names.js'
import { SERVED_HOOKS } from './names.js'
import { currentUid, localTokenPath, parseAnswer, unsafeSocketDir, type HookAnswer } from './socket.js'

/** How long `foundry-hook` waits for a team server before answering locally (`FOUNDRY_HOOK_TIMEOUT_MS` to change). */
export const TEAM_TIMEOUT_MS = 1500

/**
 * Ask the team server named by `FOUNDRY_URL` (a `foundry mcp --http` URL, with or without `/mcp`),
 * with the bearer token `FOUNDRY_TOKEN` (unset and the server on loopback: the user's local token from
 * `localTokenPath()`, when that file and its folder are private to the user), to answer a per-prompt
 * hook: `POST <base>/hooks/<hook>` with the event JSON. Resolves `undefined`, never throws, when no URL is set, the hook is not a served
 * one, or the server does not answer well within the timeout (down, 401, 5xx, a malformed answer):
 * the caller then answers from the local project, or stays silent. `warn` gets one line saying why
 * (the token never appears in it).
 */
export function askTeam(
  hook: HookName,
  stdin: string,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = () => {},
): Promise<HookAnswer | undefined> {
  const url = env.FOUNDRY_URL
  if (!url || !SERVED_HOOKS.has(hook)) return Promise.resolve(undefined)
  let target: URL
  try {
    target = new URL(`${url.replace(/\/+$/, '').replace(/\/mcp$/, '')}/hooks/${hook}`)
  } catch {
    warn(`FOUNDRY_URL is not a URL (${url.slice(0, 100)}); set it to the team server's http://host:port`)
    return Promise.resolve(undefined)
  }
  const timeoutMs = Number(env.FOUNDRY_HOOK_TIMEOUT_MS) > 0 ? Number(env.FOUNDRY_HOOK_TIMEOUT_MS) : TEAM_TIMEOUT_MS
  const secret = env.FOUNDRY_TOKEN
    ? Promise.resolve(env.FOUNDRY_TOKEN)
    : isLoopbackName(target.hostname)
      ? localToken()
      : Promise.resolve(undefined)
  return secret.then((token) => post(target, stdin, token, timeoutMs, warn))
}

/** The user's local token when its file is a regular file of the user's, mode 0600, in the private folder; undefined otherwise. */
async function localToken(): Promise<string | undefined> {
  const file = localTokenPath()
  try {
    if (process.platform !== 'win32') {
      if (await unsafeSocketDir(dirname(file))) return undefined
      const stats = await lstat(file)
      if (!stats.isFile() || stats.uid !== currentUid() || stats.mode & 0o077) return undefined
    }
    return (await readFile(file, 'utf8')).trim() || undefined
  } catch {
    return undefined
  }
}

const isLoopbackName = (name: string) => {
  const bare = name.replace(/^\[|\]$/g, '').toLowerCase()
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare)
}

async function post(
  target: URL,
  stdin: string,
  token: string | undefined,
  timeoutMs: number,
  warn: (line: string) => void,
): Promise<HookAnswer | undefined> {
  // Imported here: a hook with no team server never loads the HTTP client (~4 ms of a new process).
  const { request: send } = target.protocol === 'https:' ? await import('node:https') : await import('node:http')
  return new Promise((resolve) => {
    let done = false
    const finish = (answer: HookAnswer | undefined, why?: string) => {
      if (done) return
      done = true
      clearTimeout(timer)
      if (why) warn(`team server ${target.origin} ${why}; answering locally`)
      resolve(answer)
      req.destroy()
    }
    const timer = setTimeout(() => finish(undefined, `did not answer within ${timeoutMs} ms`), timeoutMs)
    const req = send(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => {
          text += d
          if (text.length > 4 * 1024 * 1024) finish(undefined, 'sent an answer over 4 MiB')
        })
        res.on('end', () => {
          if (res.statusCode !== 200)
            return finish(
              undefined,
              `answered HTTP ${res.statusCode}${res.statusCode === 401 ? ' (check FOUNDRY_TOKEN)' : ''}`,
            )
          const answer = parseAnswer(text)
          finish(answer, answer ? undefined : 'sent an answer this foundry-hook cannot read')
        })
        res.on('error', (error) => finish(undefined, `failed (${error.message})`))
      },
    )
    req.on('error', (error) =>
      finish(undefined, `cannot be reached (${(error as NodeJS.ErrnoException).code ?? error.message})`),
    )
    req.end(stdin)
  })
}
