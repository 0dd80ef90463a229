/** One environment variable Foundry reads: what it holds, its default, an example, and who reads it. */
export interface EnvironmentVariable {
  name: string
  /** `path`, `url`, `text`, `milliseconds`, `names` (comma-separated), `list`, or the values it takes. */
  type: string
  default: string
  example: string
  about: string
  /** The commands that read it. */
  readBy: string
}

/**
 * Every `FOUNDRY_*` and `MARBLES_*` variable, in one place: the configuration reference is generated
 * from this list (`scripts/config-reference.mjs`), so it names exactly what is read.
 */
export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  {
    name: 'FOUNDRY_ROOT',
    type: 'path',
    default: 'the nearest folder at or above the current one holding .foundry/',
    example: '/home/dana/checkout',
    about: 'The project every command works on, as --root names it; it must be a project (foundry init made it).',
    readBy: 'foundry, foundry-hook, marbles',
  },
  {
    name: 'FOUNDRY_DATABASE_URL',
    type: 'url',
    default: 'none',
    example: 'postgres://foundry:secret@db.internal:5432/foundry',
    about:
      'The PostgreSQL server of a project whose config.json names storage "postgres" without a url. Its password never appears in output, logs or doctor.',
    readBy: 'foundry, foundry-hook, marbles',
  },
  {
    name: 'FOUNDRY_TOKENS',
    type: 'list',
    default: 'none (tokens come from .foundry/tokens.json)',
    example: 'alice:write:s3cr3t,ci:read:r34d',
    about:
      'Bearer tokens of a team server, name:role:secret each, role read | write | run; used instead of tokens.json.',
    readBy: 'foundry mcp --http, marbles mcp --http',
  },
  {
    name: 'FOUNDRY_TOKEN_FILE',
    type: 'path',
    default: '<root>/.foundry/tokens.json',
    example: '/etc/foundry/tokens.json',
    about: 'Where foundry token create writes, and team servers read, the hashed tokens.',
    readBy: 'foundry token, foundry mcp --http, marbles mcp --http',
  },
  {
    name: 'FOUNDRY_HTTP_SESSIONS',
    type: 'number',
    default: '1024',
    example: '256',
    about:
      'Sessions a team server keeps open, all tokens together; when full, the largest holder’s least recently used idle session is closed for a new one.',
    readBy: 'foundry mcp --http, marbles mcp --http',
  },
  {
    name: 'FOUNDRY_HTTP_SESSIONS_PER_TOKEN',
    type: 'number',
    default: '32',
    example: '8',
    about:
      'Sessions one token may hold on a team server; past it the token’s least recently used idle session is closed (its client gets 404 and initializes again).',
    readBy: 'foundry mcp --http, marbles mcp --http',
  },
  {
    name: 'FOUNDRY_HTTP_INFLIGHT_BYTES',
    type: 'number',
    default: '16777216 (16 MiB)',
    example: '33554432',
    about:
      'Request body bytes one token may have in flight on a team server; a body past it while the token has others is refused with 429 before it is read.',
    readBy: 'foundry mcp --http, marbles mcp --http',
  },
  {
    name: 'FOUNDRY_URL',
    type: 'url',
    default: 'none (hooks answer from the local project)',
    example: 'http://foundry.internal:7411',
    about: 'A team server (foundry mcp --http) that per-prompt hooks ask first.',
    readBy: 'foundry-hook',
  },
  {
    name: 'FOUNDRY_TOKEN',
    type: 'text',
    default: "none (a loopback FOUNDRY_URL gets the user's local token, from the private runtime folder)",
    example: 's3cr3t',
    about: 'The bearer token foundry-hook sends to FOUNDRY_URL.',
    readBy: 'foundry-hook',
  },
  {
    name: 'FOUNDRY_HOOK_TIMEOUT_MS',
    type: 'milliseconds',
    default: '1500',
    example: '800',
    about:
      'How long foundry-hook waits for the team server before it answers from the local project (or stays silent).',
    readBy: 'foundry-hook',
  },
  {
    name: 'FOUNDRY_HOOK_SERVER',
    type: 'off',
    default: 'on (a running foundry mcp answers hooks)',
    example: 'off',
    about: 'off: foundry-hook never asks the hook server of a running foundry mcp, and answers in its own process.',
    readBy: 'foundry-hook',
  },
  {
    name: 'MARBLES_QUEUE_URL',
    type: 'url',
    default: "the project's PostgreSQL database, when its storage is postgres",
    example: 'postgres://foundry:secret@db.internal:5432/queue',
    about: 'The PostgreSQL server of the Marbles job queue (pg-boss); without one, runs use the lease engine.',
    readBy: 'marbles',
  },
  {
    name: 'MARBLES_KILL_GRACE_MS',
    type: 'milliseconds',
    default: '2000',
    example: '5000',
    about: "Between SIGTERM and SIGKILL of a cancelled agent CLI's process group.",
    readBy: 'marbles mcp',
  },
  {
    name: 'MARBLES_AGENT_ENV',
    type: 'names',
    default: 'none',
    example: 'HTTPS_PROXY_USER,MY_TOOL_HOME',
    about:
      'Variables to pass to agent CLIs beyond the allow-list (PATH, HOME, the locale, proxies, model providers’ keys).',
    readBy: 'marbles',
  },
]
