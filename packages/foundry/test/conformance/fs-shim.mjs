// Node 20 has no fs.globSync (22 does); @modelcontextprotocol/conformance imports it, for `**/checks.json`
// in its tier report only. This is node:fs plus a small globSync for `**/<name>` and plain names.
import fs from 'node:fs'
import { join, relative } from 'node:path'

export * from 'node:fs'
export default fs

export function globSync(pattern, options = {}) {
  if (typeof fs.globSync === 'function') return fs.globSync(pattern, options)
  const cwd = options.cwd ?? process.cwd()
  const name = String(pattern).replace(/^\*\*\//, '')
  const found = []
  const walk = (dir, depth) => {
    if (depth > 20) return
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path, depth + 1)
      else if (entry.name === name) found.push(relative(cwd, path))
    }
  }
  if (fs.existsSync(cwd)) walk(cwd, 0)
  return found
}
