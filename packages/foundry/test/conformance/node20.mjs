// `node --import ./node20.mjs …conformance/dist/index.js`: its `fs` import resolves to fs-shim.mjs on Node 20.
import { register } from 'node:module'

register(
  `data:text/javascript,${encodeURIComponent(`
const shim = ${JSON.stringify(new URL('./fs-shim.mjs', import.meta.url).href)}
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('@modelcontextprotocol/conformance')) return { url: shim, shortCircuit: true }
  return next(specifier, context)
}`)}`,
)
