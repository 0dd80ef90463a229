// @foundry/server/stdio: the stdio transport and the lifecycle alone, without the kernel or the SDK's
// Server, so a bin can answer `initialize` before those load.
export { FoundryStdioTransport } from './stdio-transport.js'
export { serveUntilClosed } from './serve-until-closed.js'
export { keepServing, stderrLog } from './lifecycle.js'
export { retrying } from './retrying.js'
export { initializeAnswer } from './handshake.js'
// The tasks capability a server with `ToolTasks` declares, for its `initialize` answer.
export { TASKS_CAPABILITY } from './tool-tasks.js'
