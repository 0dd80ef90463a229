import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { kernelFor } from './helpers.js'

/** Real ADRs from three public repositories, kept beside the repository (never copied into it). */
const ADR_DIR = fileURLToPath(new URL('../../../../shared/eval-data/adr/', import.meta.url))
const SKIP = /^(readme|license)|template|index|^adr-(0+|xx)\.md$/i
const byName = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })

/** Every record's first `# ` heading without its leading number (`24. Use SSO…` → `Use SSO…`), in file order. */
function adrTitles(): Array<{ file: string; title: string }> {
  const records: Array<{ file: string; title: string }> = []
  for (const dir of readdirSync(ADR_DIR).sort(byName)) {
    if (!statSync(join(ADR_DIR, dir)).isDirectory()) continue
    for (const name of readdirSync(join(ADR_DIR, dir)).sort(byName)) {
      if (!name.endsWith('.md') || SKIP.test(name)) continue
      const heading = /^# (.+)$/m.exec(readFileSync(join(ADR_DIR, dir, name), 'utf8'))?.[1]
      if (heading) records.push({ file: `${dir}/${name}`, title: heading.trim().replace(/^\d+\.?\s+/, '') })
    }
  }
  return records
}

/**
 * The pairs where one record really replaces the other, older → newer. Each is superseded.
 * - 021 "Multi-cluster" has the status "Superseded by 036. Multi-cluster", and 036 restates the
 *   decision under the same title: the same title with a new body is the same statement rewritten.
 */
const REPLACEMENTS = [['moj-cloud-platform/021-Multi-cluster.md', 'moj-cloud-platform/036-multi-cluster.md']]

/**
 * Not a replacement in substance, and superseded all the same: 030's file is "AWS root user
 * security", but its heading repeats 029's ("29 Kubernetes security config auditing"), a copy
 * slip in the source repository. Two facts with one title are, to the rule and to a reader of the
 * index, the same statement; the writer of the second would pass `supersede: false`.
 */
const SAME_HEADING = [['moj-cloud-platform/029-Kubernetes-security-config-auditing.md', 'moj-cloud-platform/030-AWS-root-user-security.md']]

/**
 * A real replacement the rule leaves to the writer: 018 "Dedicated Ingress Controllers for teams"
 * was rejected for 019 "Shared Ingress Controllers for teams", but a title without a verb is all
 * subject, and "dedicated" → "shared" names another subject. The write of 019 names 018 as similar.
 */
const NAMED_AS_SIMILAR = [['moj-cloud-platform/018-Dedicated-Ingress-Controllers.md', 'moj-cloud-platform/019-Shared-Ingress-Controllers.md']]

test('the real ADR titles, written as decisions, supersede only the listed pairs', async () => {
  assert.ok(existsSync(ADR_DIR), `No ADRs at ${ADR_DIR}: this test reads the real records from ../shared/eval-data/adr beside the repository; restore that folder to run it`)
  const records = adrTitles()
  assert.ok(records.length >= 100, `expected the 120 real ADR titles in ${ADR_DIR}, found ${records.length}`)
  const k = kernelFor()
  const fileOf = new Map<string, string>()
  const superseded: string[][] = []
  const similar = new Map<string, string[]>()
  for (const { file, title } of records) {
    const r = await k.memory.write({ title, body: `Recorded in ${file}.\nWhy: the record gives the context and the options weighed.\nHow to apply: follow its decision.`, type: 'decision' })
    assert.is(r.action, 'created', `${file}: ${r.text}`)
    fileOf.set(r.id, file)
    if (r.supersedes) superseded.push([fileOf.get(r.supersedes)!, file])
    similar.set(file, (r.similar ?? []).map((s) => fileOf.get(s.id)!))
  }
  assert.equal(superseded, [...REPLACEMENTS, ...SAME_HEADING].sort((a, b) => byName(a[1]!, b[1]!)), 'superseded pairs, older → newer')
  assert.is((await k.memory.list()).length, records.length - superseded.length)
  for (const [older, newer] of NAMED_AS_SIMILAR) assert.ok(similar.get(newer!)?.includes(older!), `${newer} names ${older} as similar`)
})

test.run()
