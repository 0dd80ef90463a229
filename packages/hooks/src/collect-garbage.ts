/**
 * A full garbage collection, now, in a process that owns its heap (a server, once its warm-up has
 * read the search index). The warm-up leaves the heap near V8's next limit; collected while the
 * server is idle, the first request does not pay for it (at 10k facts, ~10 ms of its ~20). Uses the
 * process's `gc` when it was started with `--expose-gc`, else V8's from a new context. False when
 * neither is there: nothing was collected, which only costs the first request that time. `node:v8`
 * is loaded here, not at start-up: requiring it costs ~3 ms, and a server starts with every session.
 */
export function collectGarbage(): boolean {
  try {
    let gc = (globalThis as { gc?: () => void }).gc
    if (!gc) {
      process.getBuiltinModule('node:v8').setFlagsFromString('--expose-gc')
      gc = process.getBuiltinModule('node:vm').runInNewContext('gc') as () => void
    }
    gc()
    return true
  } catch {
    return false
  }
}
