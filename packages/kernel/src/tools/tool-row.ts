import { FoundryError } from '../errors.js'
import type { Static, TSchema } from 'typebox'

/** What a caller may do: read (search, read, report, get_run), write (memory and blackboard writes), run (dispatch, cancel). */
export type Role = 'read' | 'write' | 'run'
export const ROLES: readonly Role[] = ['read', 'write', 'run']

/** Hints about a tool's effects, as MCP's `ToolAnnotations` spells them (plain data). */
export interface ToolHints {
  title?: string
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

/** What a tool returns: the text the model reads, and the same result as data. */
export interface ToolResult<S = unknown> {
  text: string
  /** Matches the row's `output` schema: the tool's `structuredContent`. */
  structured: S
  /** The call did not do what was asked, though nothing threw (a blackboard write its contract rejected). */
  isError?: boolean
}

/**
 * One tool, everything it is: its name and texts, its schemas (TypeBox: JSON Schema as they are),
 * the role a caller needs, and the one call it makes on its context (a kernel, a Marbles host).
 * Protocol-agnostic: an MCP server publishes rows (`@foundry/server`), an AI SDK harness wraps them.
 */
export interface ToolRow<C = unknown, I extends TSchema = TSchema, O extends TSchema = TSchema> {
  name: string
  title?: string
  /** What the tool does and when to call it: a model reads it in every session, so short. */
  description: string
  /** The arguments; validated before `call`, which then receives them typed. */
  input: I
  /** What `structured` holds (`--json` prints it too); never published in `tools/list`, which every session pays for. */
  output?: O
  /** The role a caller needs (an HTTP token's); a row without a valid one refuses to start (`checkTools`). */
  role: Role
  annotations?: ToolHints
  /**
   * Only the text reaches MCP clients: no `structuredContent` is sent. For a tool whose text is the answer: clients that get both give the model the structured
   * content in place of the text, and both would double what the client reads.
   */
  textOnly?: boolean
  /** The call. `input` has passed `input`'s schema; a throw becomes a tool error `<name> failed: <message>`. */
  call(ctx: C, input: Static<I>): Promise<ToolResult<Static<O>>>
}

/**
 * The rows checked once, at start-up (fail closed): each has a name, an input schema and a role of
 * `ROLES`, and no two share a name. Throws INVALID_INPUT naming the row and the fix; returns each
 * tool's role by name.
 */
export function checkTools(table: readonly ToolRow<never>[]): ReadonlyMap<string, Role> {
  const roles = new Map<string, Role>()
  table.forEach((row, i) => {
    const name = typeof row?.name === 'string' && row.name ? row.name : undefined
    const where = name ? `tool ${name}` : `tool #${i + 1}`
    if (!name) throw new FoundryError('INVALID_INPUT', `${where}: name missing; give every tool row a name`)
    if (roles.has(name)) throw new FoundryError('INVALID_INPUT', `${where}: two rows share the name; rename one`)
    if (typeof row.input !== 'object' || row.input === null)
      throw new FoundryError(
        'INVALID_INPUT',
        `${where}: input schema missing; give the row an input (a TypeBox object schema)`,
      )
    if (!(ROLES as readonly unknown[]).includes(row.role))
      throw new FoundryError(
        'INVALID_INPUT',
        `${where}: role ${JSON.stringify(row.role) ?? 'missing'}; give the row role: 'read', 'write' or 'run' (a tool without one is never served)`,
      )
    roles.set(name, row.role)
  })
  return roles
}
