/**
 * Stands in for the MCP SDK's Ajv provider in the bundled bin (see tsup.config.ts). `createServer`
 * always hands the SDK its own `jsonSchemaValidator`, so this is never built, and `foundry mcp` does
 * not spend its start-up evaluating Ajv (~15 ms here).
 */
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error('Ajv is not bundled in the foundry bin: give the Server a jsonSchemaValidator')
  }
}
