// @foundry/server/runtime: the user's private runtime folder and the local token's place in it, and
// blocking writes to stdout and stderr, with nothing else loaded (no kernel, no SDK): for a bin that
// starts on every prompt (foundry-hook) or on every command (foundry).
export { privateRuntimeDir, localTokenPath, currentUid } from './runtime-dir.js'
export { writeAll } from './blocking-write.js'
