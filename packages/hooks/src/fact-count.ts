import type { Kernel } from '@foundry/kernel'

/**
 * The number of active facts, read from INDEX.md (one file, built when missing) rather than from
 * every fact: a hook cannot afford to read 10 000 files. The index lists one fact a line,
 * `- fact-0012 · high · Title`, and its footer counts the facts omitted over budget.
 */
export async function activeFactCount(kernel: Kernel): Promise<number> {
  return countIndexedFacts(await kernel.memory.readIndex())
}

/** Listed lines plus the footer's `_N more facts omitted over budget…_`. */
export function countIndexedFacts(index: string): number {
  const listed = index.match(/^- fact-\d+ · /gm)?.length ?? 0
  const omitted = Number(/^_(\d+) more facts? omitted/m.exec(index)?.[1] ?? 0)
  return listed + omitted
}
