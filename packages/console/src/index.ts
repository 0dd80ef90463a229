// @foundry/console: Foundry's web console. A Node request handler (mountable under a path) serving
// the page and a JSON/SSE API over the project's own kernel and storage, and a server around it.
export { createConsoleHandler, type ConsoleHandler } from './handler.js'
export { serveConsole } from './serve.js'
export type { TokenVerifier } from './auth.js'
export type { RunActions } from './run-actions.js'
