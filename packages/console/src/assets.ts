import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { FoundryError } from '@foundry/kernel'

/** The console's static files, read once: the page, its script and its styles (built into `dist/ui`). */
export interface Assets {
  get(name: string): { body: Buffer; type: string } | undefined
}

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
}

/**
 * The built front end: `dir` when given, else `dist/ui` beside this module (the library build, the
 * bundled bin, or the sources run by tests). Throws UNAVAILABLE naming the build command when it is missing.
 */
export function loadAssets(dir?: string): Assets {
  const candidates = dir
    ? [dir]
    : [
        fileURLToPath(new URL('./ui/', import.meta.url)),
        fileURLToPath(new URL('../ui/', import.meta.url)),
        fileURLToPath(new URL('../dist/ui/', import.meta.url)),
      ]
  const found = candidates.find((d) => existsSync(`${d}/index.html`))
  if (!found)
    throw new FoundryError(
      'UNAVAILABLE',
      `the console's front end is not built (no index.html in ${candidates.join(' or ')}): run npx tsup in packages/console`,
    )
  const files = new Map<string, { body: Buffer; type: string }>()
  for (const [name, type] of Object.entries(TYPES))
    if (existsSync(`${found}/${name}`)) files.set(name, { body: readFileSync(`${found}/${name}`), type })
  return { get: (name) => files.get(name) }
}
