import { sanitizeName, type JsonValue, type Storage } from '@foundry/kernel'

/** A step result or run output larger than this (serialized) goes to an artifact; the journal holds its path. */
export const INLINE_LIMIT = 16 * 1024

export interface StoredValue {
  result?: JsonValue
  artifact?: string
  key?: string
}

/**
 * Blackboard artifacts under the run's id: `artifacts/<runId>/<name>` (on the folder layout,
 * `.foundry/blackboard/<runId>/<name>.json`), each `{ schema: "marbles.output", producedBy, summary, value }`.
 */
export function runArtifacts(storage: Storage, runId: string, producedBy: string) {
  const keyOf = (name: string) => `${runId}/${sanitizeName(name)}`
  return {
    async put(name: string, value: unknown): Promise<{ key: string; path: string }> {
      const key = keyOf(name)
      const data =
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? {
              ...(value as Record<string, unknown>),
              schema: (value as { schema?: unknown }).schema ?? 'marbles.output',
              producedBy,
            }
          : { schema: 'marbles.output', producedBy, summary: `${name} of ${runId}`, value }
      await storage.put('artifacts', key, { wave: runId, agent: sanitizeName(name), data })
      return { key, path: storage.locate('artifacts', key) }
    },
    /** A value stored by `keep`: inline, or read back from its artifact. */
    async get(stored: StoredValue): Promise<unknown> {
      if (stored.key === undefined) return stored.result
      const artifact = await storage.get('artifacts', stored.key)
      if (!artifact) throw new Error(`artifact ${stored.artifact ?? stored.key} is missing`)
      return artifact.data?.value
    },
    /** Keep a JSON value: inline when small, else in an artifact named `name`. */
    async keep(name: string, value: unknown): Promise<StoredValue> {
      if (value === undefined) return {}
      const json = JSON.stringify(value)
      if (json === undefined) return {}
      if (json.length <= INLINE_LIMIT) return { result: JSON.parse(json) as JsonValue }
      const key = keyOf(name)
      await storage.put('artifacts', key, {
        wave: runId,
        agent: sanitizeName(name),
        data: {
          schema: 'marbles.output',
          producedBy,
          summary: `${name} of ${runId} (${json.length} bytes)`,
          value: JSON.parse(json),
        },
      })
      return { artifact: storage.locate('artifacts', key), key }
    },
  }
}
export type RunArtifacts = ReturnType<typeof runArtifacts>
