import { statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join } from 'node:path'

/**
 * The user's private runtime folder, shared by every Foundry process of the user: the hook sockets
 * (`@foundry/hooks`) and the local token of loopback HTTP servers live there. `$XDG_RUNTIME_DIR/foundry/`
 * when XDG_RUNTIME_DIR is an absolute folder the user owns, else `<tmpdir>/foundry-<uid>/`. Whoever
 * writes there creates it with mode 0700 and refuses it when it is not a real folder of the user's
 * closed to group and others. Reads XDG_RUNTIME_DIR and, through `tmpdir()`, TMPDIR from `process.env`
 * on every call: tests point them at scratch folders.
 */
export function privateRuntimeDir(): string {
  const runtime = process.env.XDG_RUNTIME_DIR
  if (runtime && isAbsolute(runtime)) {
    try {
      const stats = statSync(runtime)
      if (stats.isDirectory() && stats.uid === currentUid()) return join(runtime, 'foundry')
    } catch {
      // missing or unreadable: the temporary folder then
    }
  }
  return join(tmpdir(), `foundry-${currentUid()}`)
}

/**
 * Where the user's local token for loopback HTTP servers lives: `http.token` in the private runtime
 * folder. A server without team tokens writes it (mode 0600, `claimLocalToken`) and requires it
 * (`foundry mcp --http`, `marbles mcp --http`, `foundry ui`, `foundry-console`); the user's local
 * clients (`foundry-hook`) read it.
 */
export function localTokenPath(): string {
  return join(privateRuntimeDir(), 'http.token')
}

/** This process's uid; -1 (owning nothing) where there is none. */
export function currentUid(): number {
  return process.getuid?.() ?? -1
}
