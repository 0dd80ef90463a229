// What the stdio transport checks each message with, imported by name: a bundle that marks the SDK's
// schemas pure (the foundry bin) keeps only the ones its code names. (`import()` of the SDK's module
// itself would keep them all: a namespace uses every export.)
export { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js'
