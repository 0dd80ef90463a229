import { readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml'

/**
 * The authoring contract of Claude Code assets, checked:
 * - every agent definition (`.claude/agents/*.md`, and a plugin's `agents/*.md`) declares `model:`
 *   and `effort:` in its front matter, so cheap work is routed to a cheap model;
 * - every skill body (`.claude/skills/<name>/SKILL.md`, a plugin's `skills/<name>/SKILL.md`) stays
 *   within 500 lines: depth moves to `references/`, `scripts/` and `templates/`, loaded only when needed.
 * A plugin is a folder with `.claude-plugin/plugin.json`; the extra `agents` and `skills` paths it
 * declares are checked too.
 */

const SKILL_MAX_LINES = 500
/** The front matter keys every agent definition declares. */
const AGENT_KEYS = ['model', 'effort'] as const
/** The reasoning efforts of the routing table (AUTHORING.md §2); `effort:` must be one of them. */
const AGENT_EFFORTS = ['low', 'medium', 'high', 'xhigh'] as const
const EFFORT_LIST = `${AGENT_EFFORTS.slice(0, -1).join(', ')} or ${AGENT_EFFORTS[AGENT_EFFORTS.length - 1]}`

interface AssetViolation {
  /** Relative to the root that was checked. */
  file: string
  /** 1-based. */
  line: number
  message: string
}

interface AssetReport {
  root: string
  agents: number
  skills: number
  violations: AssetViolation[]
}

interface ValidateAssetsOptions {
  /** The project or plugin folder. */
  root: string
  /** Default 500. */
  maxSkillLines?: number
}

/**
 * Check every agent definition and skill under `root`. Violations are sorted by file and line.
 * Rejects NOT_FOUND when `root` does not exist and INVALID_INPUT when it is not a folder: a typo in
 * the path must not pass as "no violations".
 */
export async function validateAssets(options: ValidateAssetsOptions): Promise<AssetReport> {
  const root = resolve(options.root)
  await assertFolder(root)
  const max = options.maxSkillLines ?? SKILL_MAX_LINES
  const { agentDirs, skillDirs, violations } = await assetFolders(root)
  const agents = unique(
    (await Promise.all(agentDirs.map((dir) => filesIn(dir, (name) => name.endsWith('.md'))))).flat(),
  )
  const skills = unique((await Promise.all(skillDirs.map(skillFiles))).flat())
  for (const file of agents) violations.push(...checkAgent(rel(root, file), await readFile(file, 'utf8')))
  for (const file of skills) violations.push(...checkSkill(rel(root, file), await readFile(file, 'utf8'), max))
  violations.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line))
  return { root, agents: agents.length, skills: skills.length, violations }
}

/** `file:line: message` a line, then a summary line. */
export function formatAssetReport(report: AssetReport): string {
  const counted = `${report.agents} agent definition${report.agents === 1 ? '' : 's'} and ${report.skills} skill${report.skills === 1 ? '' : 's'}`
  const lines = report.violations.map((v) => `${v.file}:${v.line}: ${v.message}`)
  const n = report.violations.length
  lines.push(n ? `${n} violation${n === 1 ? '' : 's'} in ${counted}.` : `Checked ${counted}: no violations.`)
  return lines.join('\n')
}

/** The violations of one agent definition: front matter present and parseable, with non-empty `model` and `effort`. */
export function checkAgent(file: string, text: string): AssetViolation[] {
  const front = frontMatter(text)
  if (!front)
    return [
      {
        file,
        line: 1,
        message: `no front matter: start the file with a --- block declaring ${AGENT_KEYS.map((k) => `${k}:`).join(' and ')}`,
      },
    ]
  const lines = new LineCounter()
  const doc = parseDocument(front.yaml, { lineCounter: lines, prettyErrors: false })
  const lineAt = (offset: number) => front.firstLine + lines.linePos(offset).line - 1
  if (doc.errors.length) {
    const error = doc.errors[0]!
    return [
      { file, line: lineAt(error.pos[0]), message: `front matter is not valid YAML: ${error.message.split('\n')[0]}` },
    ]
  }
  if (doc.contents !== null && !isMap(doc.contents))
    return [{ file, line: front.firstLine, message: 'front matter must be a YAML mapping of keys to values' }]
  const out: AssetViolation[] = []
  for (const key of AGENT_KEYS) {
    const pair = doc.contents?.items.find((item) => isScalar(item.key) && item.key.value === key)
    if (!pair) {
      out.push({
        file,
        line: front.firstLine - 1,
        message: `front matter does not declare ${key}: (${key === 'model' ? 'haiku, sonnet, opus or inherit' : EFFORT_LIST}, per the routing table)`,
      })
      continue
    }
    const value = isScalar(pair.value) ? pair.value.value : undefined
    const line = lineAt((isScalar(pair.key) && pair.key.range?.[0]) || 0)
    if (value === null || value === undefined || (typeof value === 'string' && !value.trim())) {
      out.push({
        file,
        line,
        message: `${key}: must name a ${key === 'model' ? 'model' : 'reasoning effort'}, not be empty`,
      })
    } else if (key === 'effort' && !(AGENT_EFFORTS as readonly unknown[]).includes(value)) {
      out.push({
        file,
        line,
        message: `effort: ${String(value)} is not a reasoning effort: use ${EFFORT_LIST}, per the routing table`,
      })
    } else if (typeof value !== 'string') {
      out.push({
        file,
        line,
        message: `${key}: must name a ${key === 'model' ? 'model' : 'reasoning effort'}, not ${JSON.stringify(value)}`,
      })
    }
  }
  return out
}

/** The violation of one SKILL.md, if its body (the lines after the front matter) is over `max` lines. */
export function checkSkill(file: string, text: string, max = SKILL_MAX_LINES): AssetViolation[] {
  const front = frontMatter(text)
  const bodyStart = front ? front.lastLine + 1 : 1
  const all = text.split(/\r?\n/)
  if (all[all.length - 1] === '') all.pop()
  const body = all.length - bodyStart + 1
  if (body <= max) return []
  return [
    {
      file,
      line: bodyStart + max,
      message: `SKILL.md body is ${body} lines; the limit is ${max}: move depth to references/*.md, scripts/ or templates/`,
    },
  ]
}

interface FrontMatter {
  yaml: string
  /** The line of the first YAML line (the opening --- is the line before). */
  firstLine: number
  /** The line of the closing ---. */
  lastLine: number
}

/** The YAML between an opening `---` on line 1 and the next line that is exactly `---`. */
function frontMatter(text: string): FrontMatter | undefined {
  const lines = text.split(/\r?\n/)
  if (lines[0]?.trim() !== '---') return undefined
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---')
  if (end < 0) return undefined
  return { yaml: lines.slice(1, end).join('\n'), firstLine: 2, lastLine: end + 1 }
}

/**
 * Throws NOT_FOUND naming `root` when nothing is there, INVALID_INPUT when it is a file. The kernel
 * (for FoundryError) loads only then: the bin's normal run stays free of it.
 */
async function assertFolder(root: string): Promise<void> {
  let isFolder: boolean
  try {
    isFolder = (await stat(root)).isDirectory()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
    const { FoundryError } = await import('@foundry/kernel')
    throw new FoundryError('NOT_FOUND', `No folder at ${root}: pass a project or plugin folder that exists`, {
      cause: error,
    })
  }
  if (!isFolder) {
    const { FoundryError } = await import('@foundry/kernel')
    throw new FoundryError(
      'INVALID_INPUT',
      `${root} is a file, not a folder: pass the project or plugin folder that holds it`,
    )
  }
}

/** Where agents and skills live under `root`; a broken plugin.json is itself a violation. */
async function assetFolders(
  root: string,
): Promise<{ agentDirs: string[]; skillDirs: string[]; violations: AssetViolation[] }> {
  const agentDirs = [join(root, '.claude', 'agents'), join(root, 'agents')]
  const skillDirs = [join(root, '.claude', 'skills'), join(root, 'skills')]
  const violations: AssetViolation[] = []
  const manifest = join(root, '.claude-plugin', 'plugin.json')
  let text: string | undefined
  try {
    text = await readFile(manifest, 'utf8')
  } catch {
    return { agentDirs, skillDirs, violations } // not a plugin
  }
  try {
    const plugin = JSON.parse(text) as { agents?: unknown; skills?: unknown }
    agentDirs.push(...declaredPaths(root, plugin.agents))
    skillDirs.push(...declaredPaths(root, plugin.skills))
  } catch (error) {
    violations.push({
      file: rel(root, manifest),
      line: 1,
      message: `plugin.json is not valid JSON: ${(error as Error).message}`,
    })
  }
  return { agentDirs, skillDirs, violations }
}

/** A plugin's `agents`/`skills`: a path or paths relative to the plugin root; a path to one .md file names that file's folder. */
function declaredPaths(root: string, value: unknown): string[] {
  const paths =
    typeof value === 'string'
      ? [value]
      : Array.isArray(value)
        ? value.filter((v): v is string => typeof v === 'string')
        : []
  return paths.map((p) => resolve(root, p.endsWith('.md') ? join(p, '..') : p))
}

async function filesIn(dir: string, keep: (name: string) => boolean): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true })
    return entries.filter((e) => e.isFile() && keep(e.name)).map((e) => join(dir, e.name))
  } catch {
    return []
  }
}

async function skillFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true })
    const found = await Promise.all(
      entries.filter((e) => e.isDirectory()).map((e) => filesIn(join(dir, e.name), (name) => name === 'SKILL.md')),
    )
    return found.flat()
  } catch {
    return []
  }
}

const rel = (root: string, file: string) => relative(root, file) || file
const unique = (files: string[]) => [...new Set(files)].sort()
