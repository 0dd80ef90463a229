// @foundry/hooks: Claude Code hooks that enforce Foundry's token economy, and the hook server.
// Asset validation is on `@foundry/hooks/validate-assets`.
export { answerStdin } from './run.js'
export { SERVED_HOOKS, isHookName } from './names.js'
export { serveHooks } from './server.js'
export { hookSocketPath, PROTOCOL_VERSION } from './socket.js'
