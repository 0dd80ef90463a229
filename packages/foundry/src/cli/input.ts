import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { InvalidArgumentError } from 'commander'

/** The text of `file` (relative to the current directory), or of stdin when it is `-` or absent. */
export async function readText(file: string | undefined): Promise<string> {
  if (file === undefined || file === '-') {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }
  try {
    return await readFile(resolve(file), 'utf8')
  } catch (error) {
    throw new Error(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      cause: error,
    })
  }
}

/** A JSON object from `file` or stdin; the error names the source and what is wrong. */
export async function readJsonObject(file: string | undefined): Promise<Record<string, unknown>> {
  const source = file === undefined || file === '-' ? 'stdin' : file
  let value: unknown
  try {
    value = JSON.parse(await readText(file))
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error(`${source} is not valid JSON: ${error.message}`, { cause: error })
    throw error
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${source} must hold a JSON object`)
  return value as Record<string, unknown>
}

/** Commander parser for an integer option. */
export function integer(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('Not an integer.')
  return Number(value)
}

/** Commander parser for a comma-separated list (`--tags a,b`). */
export function list(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
}
