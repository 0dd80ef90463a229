// @foundry/server/stdio: the stdio transport and the lifecycle alone, without the kernel or the SDK's
// Server, so a bin can answer `initialize` before those load.
export { FoundryStdioTransport, ANSWER_GRACE_MS, MAX_MESSAGE_BYTES, READ_PAUSE_AT, READ_RESUME_AT, type StdioTransportOptions } from './stdio-transport.js'
export { serveUntilClosed, RELEASE_GRACE_MS } from './serve-until-closed.js'
export { keepServing, onStopSignal, stderrLog, oneLine, type KeepServingOptions } from './lifecycle.js'
export { retrying } from './retrying.js'
