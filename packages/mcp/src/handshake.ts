import { initializeAnswer } from '@foundry/server/stdio'
import pkg from '../package.json' with { type: 'json' }

/*
 * What `foundry mcp` answers to `initialize`, kept apart from the SDK: the stdio server answers the
 * handshake before the SDK's Server and its zod schemas have loaded (~40 ms of start-up), and the
 * Server, once loaded, is built from the same values (server.ts).
 */

/** Returned on `initialize`, verbatim from seed 000: what shapes the model's default behaviour. */
export const INSTRUCTIONS =
  'Foundry memory and contracts. Prefer memory_search over reading .foundry files. Consult runbook_list before recurring tasks. ' +
  'Hand work between agents with blackboard_write, returning only the artifact path and a short summary.'

export const SERVER_INFO = { name: 'foundry', title: 'Foundry', version: pkg.version }
export const CAPABILITIES = { tools: {}, resources: {} }

/**
 * The result of an `initialize` request as the SDK's Server gives it, or `undefined` when the request
 * is not one it would accept as is (then the Server answers it, when it has loaded).
 */
export const initializeResult = initializeAnswer({
  info: SERVER_INFO,
  capabilities: CAPABILITIES,
  instructions: INSTRUCTIONS,
})
