import { initialized, startRawServer } from '@foundry/server/testing'
import { BIN } from './helpers.js'

export { textOf, toolCall } from '@foundry/server/testing'

/** A server over raw stdio, as `startRawServer` gives it. */
export type RawServer = ReturnType<typeof startRawServer>

/** `foundry mcp --root <root>` over raw stdio (`@foundry/server/testing`), without the hook server. */
export function startRaw(root: string, env: Record<string, string> = {}): RawServer {
  return startRawServer(BIN, ['mcp', '--root', root], { env: { FOUNDRY_HOOK_SERVER: 'off', ...env } })
}

/** Start `foundry mcp` and finish the handshake. */
export async function startInitialized(root: string, env: Record<string, string> = {}): Promise<RawServer> {
  return initialized(startRaw(root, env))
}
