import { Command } from 'commander'
import { action, type CommandContext } from '../context.js'

/**
 * `foundry token create|list|revoke`: bearer tokens for a team server (`foundry mcp --http`,
 * `marbles mcp --http`). Their SHA-256 goes into `.foundry/tokens.json` (or `FOUNDRY_TOKEN_FILE`), or
 * into the database on a PostgreSQL project; a secret is printed once, at creation, and stored nowhere.
 */
export function tokenCommand(): Command {
  const token = new Command('token').description(
    'Bearer tokens for a team server (foundry mcp --http): create, list, revoke',
  )
  token
    .command('create')
    .description(
      'Create a token: its hash goes into .foundry/tokens.json (the database on a PostgreSQL project), the secret is printed once',
    )
    .requiredOption(
      '--role <role>',
      'read (search, read, report, get_run), write (memory and blackboard writes) or run (dispatch, cancel); join several with +',
    )
    .requiredOption('--name <name>', 'who holds it: named in the events of its calls and the facts it writes')
    .action(
      action(async (ctx, options: { role: string; name: string }) => {
        const { parseRoles } = await import('@foundry/server')
        const roles = parseRoles(options.role)
        const tokens = await book(ctx)
        const { secret, record } = await tokens.create(options.name, roles)
        return {
          text: `${secret}\ntoken ${record.name} (${record.roles.join('+')}) added to ${tokens.where}; the secret above is shown once: give it to its holder as FOUNDRY_TOKEN`,
          json: { name: record.name, roles: record.roles, file: tokens.where, secret },
        }
      }),
    )
  token
    .command('list')
    .description('The tokens of the project: names, roles, dates (no secret is stored)')
    .action(
      action(async (ctx) => {
        const tokens = (await (await book(ctx)).list()).map(({ name, roles, created }) => ({ name, roles, created }))
        return {
          text: tokens.length
            ? tokens.map((t) => `${t.name}  ${t.roles.join('+')}  ${t.created}`).join('\n')
            : 'no tokens (foundry token create --role read --name <who>)',
          json: tokens,
        }
      }),
    )
  token
    .command('revoke')
    .description('Revoke a token: every running team server refuses it within a second, no restart')
    .argument('<name>', 'the token to revoke (foundry token list shows the names)')
    .action(
      action(async (ctx, name: string) => {
        const tokens = await book(ctx)
        const record = await tokens.revoke(name)
        return {
          text: `token ${record.name} (${record.roles.join('+')}) revoked in ${tokens.where}; running servers refuse it within a second`,
          json: { name: record.name, roles: record.roles, file: tokens.where, revoked: true },
        }
      }),
    )
  return token
}

/** The open project's tokens: its file, or its database when the storage is networked. */
const book = async (ctx: CommandContext) => (await import('@foundry/server')).tokenBook(await ctx.project())
