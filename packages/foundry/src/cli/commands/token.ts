import { Command } from 'commander'
import { action } from '../context.js'

/**
 * `foundry token create --role <role> --name <who>`: a bearer token for a team server
 * (`foundry mcp --http`, `marbles mcp --http`). Its SHA-256 goes into `.foundry/tokens.json` (or
 * `FOUNDRY_TOKEN_FILE`); the secret is printed once, here, and stored nowhere.
 */
export function tokenCommand(): Command {
  const token = new Command('token').description('Bearer tokens for a team server (foundry mcp --http): create, list')
  token
    .command('create')
    .description('Create a token: its hash goes into .foundry/tokens.json, the secret is printed once')
    .requiredOption('--role <role>', 'read (search, read, report, get_run), write (memory and blackboard writes) or run (dispatch, cancel); join several with +')
    .requiredOption('--name <name>', 'who holds it: named in the events of its calls and the facts it writes')
    .action(
      action(async (ctx, options: { role: string; name: string }) => {
        const { createToken, parseRoles } = await import('@foundry/server')
        const roles = parseRoles(options.role)
        const { secret, record, file } = await createToken((await ctx.project()).root, options.name, roles)
        return {
          text: `${secret}\ntoken ${record.name} (${record.roles.join('+')}) added to ${file}; the secret above is shown once: give it to its holder as FOUNDRY_TOKEN`,
          json: { name: record.name, roles: record.roles, file, secret },
        }
      }),
    )
  token
    .command('list')
    .description('The tokens in .foundry/tokens.json: names, roles, dates (no secret is stored)')
    .action(
      action(async (ctx) => {
        const { listTokens } = await import('@foundry/server')
        const tokens = (await listTokens((await ctx.project()).root)).map(({ name, roles, created }) => ({ name, roles, created }))
        return { text: tokens.length ? tokens.map((t) => `${t.name}  ${t.roles.join('+')}  ${t.created}`).join('\n') : 'no tokens (foundry token create --role read --name <who>)', json: tokens }
      }),
    )
  return token
}
