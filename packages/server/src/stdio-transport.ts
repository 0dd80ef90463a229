import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js'
import { isRecord } from './handshake.js'

export interface StdioTransportOptions {
  /**
   * The result for an `initialize` request read before a server is connected (or a promise of it,
   * written when it resolves), or undefined to leave it to the server. When it answers, the request
   * still reaches the server (which sets itself up from it), and the server's own answer is not sent.
   */
  initialize?: (message: unknown) => object | Promise<object> | undefined
  /**
   * A request read after `initialize` was answered here and before a server is connected: a promise
   * of its result answers it here (the server never sees it), undefined holds it for the server, as
   * every other message is held. A rejection is answered with JSON-RPC error -32603.
   */
  early?: (request: { id: string | number; method: string; params?: unknown }) => Promise<object> | undefined
  /**
   * After stdin ends, how long requests still running may take to be answered before the transport
   * closes anyway (the client is gone; a call that never ends must not keep the process). Default
   * `ANSWER_GRACE_MS`.
   */
  answerGraceMs?: number
}

/** After stdin ends, how long a request still running may take to be answered: 5 s. */
export const ANSWER_GRACE_MS = 5000

/** The largest JSON-RPC message a server reads (one line of stdin): a longer one is refused with an error, and the server goes on. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024
/** Requests read but not yet answered at which the server stops reading stdin (backpressure), and the count at which it reads on. */
export const READ_PAUSE_AT = 64
export const READ_RESUME_AT = 32

/**
 * Newline-delimited JSON-RPC on stdin/stdout, as the SDK's stdio transport, with what a server that
 * reads untrusted input needs (`foundry mcp` and `marbles mcp` both serve over it):
 * - It reads from `start()` on, and holds what it read until a server is connected and the SDK's
 *   message schema (zod, imported on start) has loaded; `initialize` may be answered before
 *   (`StdioTransportOptions.initialize`).
 * - Backpressure: past `READ_PAUSE_AT` unanswered requests it stops reading stdin, so a client that
 *   sends thousands at once waits in its pipe rather than in this process's memory.
 * - A line over `MAX_MESSAGE_BYTES` is dropped as it streams in (never buffered whole) and refused
 *   with JSON-RPC error -32600, a line that is not JSON with -32700, JSON that is no JSON-RPC message
 *   with -32600; each is one line on stderr, and the server reads on. (The SDK's transport closed
 *   without a word, and the process exited 0.)
 * - It closes when stdin ends but only once every request read so far has its response written: a
 *   client may send its last request and close stdin at once (`printf '…' | foundry mcp`), and still
 *   deserves the answer; requests still running `answerGraceMs` after the end are given up (one
 *   line on stderr), so a client that went away mid-call leaves no process behind.
 */
export class FoundryStdioTransport implements Transport {
  onmessage?: Transport['onmessage']
  onerror?: Transport['onerror']
  onclose?: Transport['onclose']
  /** Input read but not yet split into lines (kept while paused). */
  private input: Buffer[] = []
  /** The line being read, and its length; `dropping` counts the bytes of an oversize line being discarded. */
  private line: Buffer[] = []
  private lineBytes = 0
  private dropping = 0
  /** Requests handed to the server and not yet answered, by id. */
  private readonly unanswered = new Map<string, number>()
  private inFlight = 0
  private ended = false
  private closed = false
  /** The end of the grace after stdin ended; cleared when the transport closes first. */
  private graceTimer: NodeJS.Timeout | undefined
  private started = false
  /** JSON values read and not yet handed on: the schema is loading, or no server is connected yet. */
  private held: unknown[] = []
  private schema: typeof JSONRPCMessageSchema | undefined
  private schemaLoading = false
  /** The `initialize` answered before the server: its id, once the server's answer is dropped. */
  private preanswered: string | undefined
  /** That answer is not written yet: nothing else is answered or handed on before it. */
  private preanswering = false
  private initializeSeen = false
  /** Requests being answered here (`early`), by id: true once cancelled. */
  private readonly answering = new Map<string, boolean>()
  /** Callers of `needed()`, how long the client must be quiet for them, and the timer of that wait. */
  private needers: Array<() => void> = []
  private quietMs = 0
  private quietTimer: NodeJS.Timeout | undefined
  /** Callers of `idle()` waiting for the requests in flight to be answered. */
  private idlers: Array<() => void> = []

  constructor(
    private readonly log: (line: string) => void,
    private readonly options: StdioTransportOptions = {},
  ) {}

  /**
   * Start reading stdin; called again (by the server's `connect`), load the SDK's message schema and
   * hand on what was held.
   */
  async start(): Promise<void> {
    if (!this.started) {
      this.started = true
      process.stdin.on('data', this.onData)
      process.stdin.on('error', this.onInputError)
      process.stdin.once('end', this.onEnd)
      process.stdout.on('error', this.onOutputError)
    }
    if (this.onmessage && !this.schemaLoading) {
      this.schemaLoading = true
      void import('./message-schema.js').then(
        (types) => {
          this.schema = types.JSONRPCMessageSchema
          this.handOn()
        },
        (error: unknown) => {
          this.log(`cannot load the MCP SDK (${(error as Error).message}): closing`)
          void this.close()
        },
      )
    }
    this.handOn()
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return
    if (
      !('method' in message) &&
      'id' in message &&
      message.id !== undefined &&
      JSON.stringify(message.id) === this.preanswered
    ) {
      // The server's answer to the `initialize` answered already.
      this.preanswered = undefined
      this.settle(message.id)
      return
    }
    const json = `${JSON.stringify(message)}\n`
    await new Promise<void>((resolve) =>
      process.stdout.write(json) ? resolve() : process.stdout.once('drain', resolve),
    )
    if (!('method' in message) && 'id' in message && message.id !== undefined) this.settle(message.id)
  }

  /**
   * Resolves once no request read so far waits for its answer (at once when none does), or when the
   * transport closes: what a server defers until its first answers are written (`foundry mcp`'s hook
   * server) starts then, not while a client waits.
   */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.idlers.push(resolve))
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.graceTimer)
    process.stdin.off('data', this.onData)
    process.stdin.off('error', this.onInputError)
    process.stdin.off('end', this.onEnd)
    process.stdin.pause()
    this.input = []
    this.line = []
    this.held = []
    this.wakeIdlers()
    this.checkNeeded()
    this.onclose?.()
  }

  private readonly onData = (chunk: Buffer | string) => {
    this.input.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
    this.pump()
  }

  private readonly onEnd = () => {
    this.ended = true
    const grace = this.options.answerGraceMs ?? ANSWER_GRACE_MS
    // Not unref'd: a request whose handler waits on nothing that can settle would otherwise let the
    // event loop drain with the server still open (Node exits 13, its top-level await unsettled).
    this.graceTimer = setTimeout(() => {
      if (this.closed) return
      this.log(`stdin ended; ${this.inFlight} request(s) still unanswered after ${grace} ms: closing`)
      void this.close()
    }, grace)
    this.pump()
    this.checkNeeded()
  }

  private readonly onInputError = (error: Error) => {
    this.log(`stdin failed (${error.message}): closing`)
    void this.close()
  }

  private readonly onOutputError = (error: Error) => {
    // The client is gone (EPIPE): nothing can be answered any more.
    this.log(`stdout failed (${error.message}): closing`)
    void this.close()
  }

  /** Split what was read into lines and hand them on, until the server has enough in flight. */
  private pump(): void {
    while (this.input.length && !this.closed && this.inFlight + this.held.length < READ_PAUSE_AT) {
      const chunk = this.input[0]!
      const newline = chunk.indexOf(10)
      const piece = newline < 0 ? chunk : chunk.subarray(0, newline)
      if (newline < 0) this.input.shift()
      else this.input[0] = chunk.subarray(newline + 1)
      if (this.dropping || this.lineBytes + piece.length > MAX_MESSAGE_BYTES) {
        this.dropping += (this.dropping ? 0 : this.lineBytes) + piece.length
        this.line = []
        this.lineBytes = 0
      } else if (piece.length) {
        this.line.push(piece)
        this.lineBytes += piece.length
      }
      if (newline >= 0) this.endLine()
    }
    if (this.closed) return
    if (this.input.length) process.stdin.pause()
    else if (this.ended) {
      if (this.lineBytes || this.dropping) this.endLine() // a last line without its newline
      this.closeWhenAnswered()
    } else process.stdin.resume()
  }

  private endLine(): void {
    if (this.dropping) {
      const bytes = this.dropping
      this.dropping = 0
      this.refuse(
        null,
        -32600,
        `Invalid Request: a message of ${bytes} bytes is over the limit of ${MAX_MESSAGE_BYTES} bytes (10 MiB); it was not read. Send smaller arguments.`,
      )
      return
    }
    const text = Buffer.concat(this.line, this.lineBytes).toString('utf8').replace(/\r$/, '')
    this.line = []
    this.lineBytes = 0
    if (!text.trim()) return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      this.refuse(null, -32700, `Parse error: the message is not JSON (${(error as Error).message.slice(0, 200)})`)
      return
    }
    if (
      this.options.initialize &&
      !this.initializeSeen &&
      (value as { method?: unknown } | null)?.method === 'initialize'
    ) {
      this.initializeSeen = true
      const result = this.options.initialize(value)
      if (result && !this.closed) this.preanswer((value as { id: string | number }).id, result)
    } else if (this.answersEarly(value)) return
    this.held.push(value)
    this.handOn()
    this.checkNeeded()
  }

  /**
   * Answer `initialize` here, now or when `result` resolves (counted in flight until then; a rejection
   * is answered with JSON-RPC error -32603). The server's own answer is dropped either way.
   */
  private preanswer(id: string | number, result: object | Promise<object>): void {
    const key = JSON.stringify(id)
    this.preanswered = key
    if (!(result instanceof Promise)) return this.answer(id, { result })
    this.unanswered.set(key, (this.unanswered.get(key) ?? 0) + 1)
    this.inFlight++
    this.preanswering = true
    const send = (message: object) => {
      this.answer(id, message)
      this.preanswering = false
      this.settle(id)
      this.handOn()
    }
    void result.then(
      (answer) => send({ result: answer }),
      (error: unknown) => {
        this.log(`cannot answer initialize: ${(error as Error)?.message ?? error}`)
        send({
          error: {
            code: -32603,
            message: `Internal error: the server cannot start (${(error as Error)?.message ?? error})`,
          },
        })
      },
    )
  }

  /**
   * Whether `value`, read before a server is connected and after `initialize` was answered here, is
   * answered here (`StdioTransportOptions.early`); a cancellation of such a request is taken here too.
   */
  private answersEarly(value: unknown): boolean {
    if (!this.options.early || this.onmessage || this.preanswered === undefined || this.preanswering) return false
    if (!isRecord(value)) return false
    const { jsonrpc, id, method, params } = value
    if (jsonrpc !== '2.0' || typeof method !== 'string') return false
    if (id === undefined && method === 'notifications/cancelled' && isRecord(params)) {
      const key = JSON.stringify(params.requestId)
      if (this.answering.has(key)) this.answering.set(key, true)
      return false // held for the server too, which knows nothing of it
    }
    if (!(typeof id === 'string' || Number.isInteger(id))) return false
    const key = JSON.stringify(id)
    if (this.unanswered.has(key)) return false // an id in flight: the server answers (refuses) it
    const answer = this.options.early({ id: id as string | number, method, ...(params !== undefined && { params }) })
    if (!answer) return false
    this.unanswered.set(key, 1)
    this.inFlight++
    this.answering.set(key, false)
    const send = (message: object) => {
      const cancelled = this.answering.get(key)
      this.answering.delete(key)
      // A cancelled request is never answered, as the SDK's Server does not answer one.
      if (!cancelled) this.answer(id as string | number, message)
      this.settle(id as string | number)
    }
    void answer.then(
      (result) => send({ result }),
      (error: unknown) => send({ error: { code: -32603, message: String((error as Error)?.message ?? error) } }),
    )
    return true
  }

  /** A response written here (not by the server): `message` is its `result` or its `error`. */
  private answer(id: string | number, message: object): void {
    if (!this.closed) process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, ...message })}\n`)
  }

  /** Validate and hand on what was held, once the schema has loaded and a server is connected. */
  private handOn(): void {
    if (!this.schema || !this.onmessage || this.preanswering) return
    while (this.held.length && !this.closed) this.accept(this.held.shift())
    this.closeWhenAnswered()
  }

  private accept(value: unknown): void {
    const parsed = this.schema!.safeParse(value)
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id
      const first = parsed.error.issues[0]
      const where = first?.path.length ? ` at ${first.path.join('.').slice(0, 100)}` : ''
      this.refuse(
        typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null,
        -32600,
        `Invalid Request: not a JSON-RPC 2.0 message${where}`,
      )
      return
    }
    const message = parsed.data
    if ('method' in message && 'id' in message) {
      const key = JSON.stringify(message.id)
      this.unanswered.set(key, (this.unanswered.get(key) ?? 0) + 1)
      this.inFlight++
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      // A cancelled request is never answered (the SDK drops its response): stop waiting for it.
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId
      if (id !== undefined) this.settle(id as string | number)
    }
    this.onmessage?.(message)
  }

  /** An answer the server never saw: one line on stderr and a JSON-RPC error to the client. */
  private refuse(id: string | number | null, code: number, message: string): void {
    this.log(message)
    if (this.closed) return
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`)
  }

  private settle(id: string | number): void {
    const key = JSON.stringify(id)
    const count = this.unanswered.get(key)
    if (count === undefined) return
    if (count > 1) this.unanswered.set(key, count - 1)
    else this.unanswered.delete(key)
    this.inFlight--
    if (this.inFlight <= READ_RESUME_AT && this.input.length) this.pump()
    else this.closeWhenAnswered()
    if (this.isIdle()) this.wakeIdlers()
    this.checkNeeded()
  }

  private isIdle(): boolean {
    return this.closed || (this.inFlight <= 0 && !this.held.length)
  }

  /**
   * Resolves once the server is needed: a request is held for it, stdin ended, the transport closed,
   * or nothing has been in flight for `quietMs` (the first answers written here, and the client
   * quiet). A bin loads the SDK's Server then, not while a client waits on an answer given here.
   */
  needed(quietMs: number): Promise<void> {
    return new Promise((resolve) => {
      this.needers.push(resolve)
      this.quietMs = quietMs
      this.checkNeeded()
    })
  }

  /** Wake `needed()`'s callers when the server is needed, or (re)start the quiet wait; `quiet` once it has passed. */
  private checkNeeded(quiet = false): void {
    if (!this.needers.length) return
    clearTimeout(this.quietTimer)
    const request = this.held.some(
      (value) => isRecord(value) && value.id !== undefined && JSON.stringify(value.id) !== this.preanswered,
    )
    if (quiet || request || this.ended || this.closed) {
      const waiting = this.needers
      this.needers = []
      for (const resolve of waiting) resolve()
    } else if (this.inFlight <= 0) this.quietTimer = setTimeout(() => this.checkNeeded(true), this.quietMs).unref()
  }

  private wakeIdlers(): void {
    const waiting = this.idlers
    this.idlers = []
    for (const resolve of waiting) resolve()
  }

  private closeWhenAnswered(): void {
    if (this.ended && this.inFlight <= 0 && !this.input.length && !this.held.length) void this.close()
  }
}
