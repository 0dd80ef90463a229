// @foundry/cli: the `foundry` app. It composes @foundry/mcp (the server and its table), @foundry/hooks
// (the hook server beside it, validate-assets) and @foundry/project. The bins are `foundry` and
// `foundry-hook`; this entry runs the CLI from code.
export { runCli } from './cli/program.js'
