import { isFoundryError, type Kernel } from '@foundry/kernel'
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js'

/** Seed 000's resources: the memory index, the contract list, and one per runbook. All text/markdown. */
export const INDEX_URI = 'foundry://memory/index'
export const CONTRACTS_URI = 'foundry://contracts'
export const RUNBOOK_PREFIX = 'foundry://runbooks/'

const MARKDOWN = 'text/markdown'

/** The resources of `resources/list`: the two that always exist, then one per runbook. */
export async function listResources(kernel: Kernel): Promise<Resource[]> {
  const { runbooks } = await kernel.runbooks.list()
  return [
    {
      uri: INDEX_URI,
      name: 'Memory index',
      description: '.foundry/memory/INDEX.md, built on demand if missing',
      mimeType: MARKDOWN,
    },
    {
      uri: CONTRACTS_URI,
      name: 'I/O contracts',
      description: 'A markdown list of every available contract id',
      mimeType: MARKDOWN,
    },
    ...runbooks.map((r) => ({
      uri: RUNBOOK_PREFIX + r.slug,
      name: `Runbook: ${r.title}`,
      ...(r.trigger && { description: r.trigger }),
      mimeType: MARKDOWN,
    })),
  ]
}

/** The contents of a resource, or `undefined` when the URI names none (the server answers -32602). */
export async function readResource(kernel: Kernel, uri: string): Promise<ReadResourceResult | undefined> {
  const text = await resourceText(kernel, uri)
  return text === undefined ? undefined : { contents: [{ uri, mimeType: MARKDOWN, text }] }
}

async function resourceText(kernel: Kernel, uri: string): Promise<string | undefined> {
  if (uri === INDEX_URI) return kernel.memory.readIndex()
  if (uri === CONTRACTS_URI) return contractList(kernel)
  if (!uri.startsWith(RUNBOOK_PREFIX)) return undefined
  try {
    return (await kernel.runbooks.get({ slug: decodeURIComponent(uri.slice(RUNBOOK_PREFIX.length)) })).text
  } catch (error) {
    // A slug that does not exist, or could not (malformed): either way no such resource.
    if (isFoundryError(error, 'NOT_FOUND') || isFoundryError(error, 'INVALID_INPUT') || error instanceof URIError)
      return undefined
    throw error
  }
}

async function contractList(kernel: Kernel): Promise<string> {
  const contracts = await kernel.contracts.list()
  const lines = contracts.map((c) => `- \`${c.id}\` (${c.origin === 'builtin' ? 'built-in' : 'project'})`)
  return `# I/O contracts\n\nValidate an artifact with contract_validate; hand it over with blackboard_write.\n\n${lines.join('\n')}\n`
}
