// @foundry/console: Foundry's web console. A Node request handler (mountable under a path) serving
// the page and a JSON/SSE API over the project's own kernel and storage, and a server around it.
export { createConsoleHandler, type ConsoleHandler, type ConsoleHandlerOptions } from './handler.js'
export { serveConsole, type ServeConsoleOptions, type ConsoleServer } from './serve.js'
export { projectTokens, type TokenVerifier, type ConsolePrincipal, type ConsoleRole } from './auth.js'
