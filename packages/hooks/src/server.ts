import { lstat, mkdir, unlink } from 'node:fs/promises'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { dirname } from 'node:path'
import { FoundryError } from '@foundry/kernel'
import type { ProjectContext } from '@foundry/project'
import { collectGarbage } from './collect-garbage.js'
import { isHookName, SERVED_HOOKS } from './names.js'
import { answerStdin } from './run.js'
import { currentUid, hookSocketPath, PROTOCOL_VERSION, unsafeSocketDir, type HookRequest } from './socket.js'

/** How long after the warm-up its garbage is collected (`collectGarbage`). */
const COLLECT_AFTER_MS = 250

/** Requests larger than this are refused (an event JSON with a huge prompt still fits). */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024

export interface HookServer {
  /** The socket or pipe it listens on. */
  path: string
  /** Stop listening and remove the socket. Idempotent. */
  close(): Promise<void>
}

export interface ServeOptions {
  /**
   * Load the index in the background as soon as the server listens, so no prompt waits for it
   * (`kernel.memory.warm()`: the write catalog and the retriever brought up to date, the retriever
   * loaded), then collect the garbage that left (`collectGarbage`). Default true.
   */
  warm?: boolean
}

/**
 * Answer the project's per-prompt hooks (`SERVED_HOOKS`) over the hook socket (socket.ts), from a
 * process that keeps the project open, such as `foundry mcp`: the hooks then skip loading the kernel
 * and opening the index. Resolves `undefined` when another live server already holds the address
 * (a second session on the same project). Throws UNAVAILABLE, touching nothing, when the socket's
 * folder is not private to this user or the file at the address is another user's (socket.ts, the
 * address): the caller logs it, and hooks run in their own processes. The server never keeps its
 * process alive by itself, and it answers with the configuration the project was opened with.
 */
export async function serveHooks(project: ProjectContext, options: ServeOptions = {}): Promise<HookServer | undefined> {
  const path = hookSocketPath(project.root)
  if (process.platform !== 'win32') await claimFolder(dirname(path))
  // Half-open: the client ends its side after the request and still waits for the answer.
  const server = createServer({ allowHalfOpen: true }, (socket) => void respond(socket, project))
  if (!(await listen(server, path))) {
    if (process.platform !== 'win32') await assertOwn(path)
    if (await isLive(path)) return undefined
    await unlink(path).catch(() => undefined) // a stale socket left by a process that died
    if (!(await listen(server, path))) return undefined
  }
  server.unref()
  if (options.warm ?? true) void warm(project)
  let closing: Promise<void> | undefined
  return {
    path,
    close: () =>
      (closing ??= new Promise<void>((done) => server.close(() => done())).then(async () => {
        if (process.platform !== 'win32') await unlink(path).catch(() => undefined)
      })),
  }
}

/** Create the socket's folder (mode 0700) unless it exists; throw unless it is a real folder private to this user. */
async function claimFolder(dir: string): Promise<void> {
  await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw refused(`cannot create ${dir}: ${error.message}`)
  })
  const unsafe = await unsafeSocketDir(dir)
  if (unsafe) throw refused(`${unsafe}; remove it, or make it yours with mode 0700`)
}

/** Throw unless the file at `path` is this user's: another user's file is never replaced. */
async function assertOwn(path: string): Promise<void> {
  const stats = await lstat(path).catch(() => undefined) // gone already: nothing to replace
  if (stats && stats.uid !== currentUid()) throw refused(`${path} belongs to uid ${stats.uid}, not ${currentUid()}`)
}

function refused(why: string): FoundryError {
  return new FoundryError('UNAVAILABLE', `Hook socket refused: ${why}`)
}

async function respond(socket: Socket, project: ProjectContext): Promise<void> {
  socket.on('error', () => socket.destroy())
  const reply = (value: Record<string, unknown>) => socket.end(`${JSON.stringify({ v: PROTOCOL_VERSION, ...value })}\n`)
  let request: HookRequest
  try {
    request = JSON.parse(await readLine(socket)) as HookRequest
  } catch (error) {
    reply({ unavailable: `bad request: ${(error as Error).message}` })
    return
  }
  if (request.v !== PROTOCOL_VERSION || typeof request.stdin !== 'string' || typeof request.hook !== 'string') {
    reply({ unavailable: `unsupported request (protocol ${PROTOCOL_VERSION})` })
    return
  }
  if (!isHookName(request.hook) || !SERVED_HOOKS.has(request.hook)) {
    reply({ unavailable: `hook "${request.hook}" is not served` })
    return
  }
  reply({ ...(await answerStdin(request.hook, request.stdin, project)) })
}

/** The first line the client sends (or all it sends before ending). */
function readLine(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      text += chunk
      if (text.length > MAX_REQUEST_BYTES) reject(new Error(`request over ${MAX_REQUEST_BYTES} bytes`))
      const end = text.indexOf('\n')
      if (end >= 0) resolve(text.slice(0, end))
    })
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
}

async function warm({ kernel }: ProjectContext): Promise<void> {
  try {
    await kernel.memory.warm()
    // The warm-up's garbage collected while idle, not in a first answer: after the requests that came
    // with the warm-up (they waited for it) are answered, and well before a model's first call.
    setTimeout(collectGarbage, COLLECT_AFTER_MS).unref()
  } catch {
    // a cold index is slower, not wrong: the first request opens it
  }
}

function listen(server: Server, path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error))
    server.once('error', onError)
    server.listen(path, () => {
      server.off('error', onError)
      resolve(true)
    })
  })
}

function isLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path)
    socket.on('connect', () => (socket.destroy(), resolve(true)))
    socket.on('error', () => resolve(false))
  })
}
