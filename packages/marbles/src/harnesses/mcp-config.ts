import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** An MCP config file only this user can read, and its removal. */
export interface PrivateFile {
  path: string
  remove(): Promise<void>
}

/**
 * Write `{ mcpServers }` to a file in a fresh folder of mode 0700 (the file 0600) for a CLI's
 * `--mcp-config <file>`: a server entry's environment (a database URL, say) then stays out of the
 * command line, which every local user can read in the process list.
 */
export async function privateMcpConfig(mcpServers: Record<string, unknown>): Promise<PrivateFile> {
  const dir = await mkdtemp(join(tmpdir(), 'marbles-mcp-'))
  const path = join(dir, 'mcp.json')
  await writeFile(path, JSON.stringify({ mcpServers }), { mode: 0o600 })
  return { path, remove: () => rm(dir, { recursive: true, force: true }) }
}
