import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Project } from '@foundry/project'
import { grants, type Principal } from '@foundry/server'

/** Where a team server answers hooks: `POST /hooks/<hook>` with the Claude Code event JSON as the body. */
export const HOOKS_PATH = '/hooks/'

/**
 * The team server's hook endpoint: `foundry-hook` with `FOUNDRY_URL` and `FOUNDRY_TOKEN` posts the
 * event here and prints the answer (`{v, stdout, stderr, exitCode}`, as the local hook server's). Only
 * the per-prompt hooks (`SERVED_HOOKS`: they read memory) are served; they need the read role.
 */
export function hookRoute(project: Project) {
  return async (
    req: IncomingMessage,
    res: ServerResponse,
    principal: Principal,
    body: () => Promise<Buffer>,
  ): Promise<boolean> => {
    const path = (req.url ?? '/').split('?')[0]!
    if (!path.startsWith(HOOKS_PATH)) return false
    const name = path.slice(HOOKS_PATH.length)
    const { answerStdin, isHookName, PROTOCOL_VERSION, SERVED_HOOKS } = await import('@foundry/hooks')
    if (req.method !== 'POST' || !isHookName(name) || !SERVED_HOOKS.has(name)) {
      send(res, 404, { error: `Not found: POST ${HOOKS_PATH}<${[...SERVED_HOOKS].join(' | ')}>` })
      return true
    }
    if (!grants(principal).has('read')) {
      send(res, 403, { error: `the token ${principal.name} lacks the read role the hooks need` })
      return true
    }
    send(res, 200, { v: PROTOCOL_VERSION, ...(await answerStdin(name, (await body()).toString('utf8'), project)) })
    return true
  }
}

function send(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}
