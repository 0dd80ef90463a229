// @foundry/server/runtime: the user's private runtime folder and the local token's place in it, with
// nothing else loaded (no kernel, no SDK): for a bin that starts on every prompt (foundry-hook).
export { privateRuntimeDir, localTokenPath, currentUid } from './runtime-dir.js'
