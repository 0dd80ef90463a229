import { readFileSync } from 'node:fs'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { kernelFor } from './helpers.js'

/** The titles of 120 real ADRs from three public repositories (sources and licences in the fixture's header). */
const TITLES = new URL('./fixtures/adr-titles.tsv', import.meta.url)
const byName = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })

/** Every record's title (its first `# ` heading without the leading number), in file order. */
function adrTitles(): Array<{ file: string; title: string }> {
  return readFileSync(TITLES, 'utf8')
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [file = '', title = ''] = line.split('\t')
      return { file, title }
    })
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
const SAME_HEADING = [
  ['moj-cloud-platform/029-Kubernetes-security-config-auditing.md', 'moj-cloud-platform/030-AWS-root-user-security.md'],
]

/**
 * A real replacement the rule leaves to the writer: 018 "Dedicated Ingress Controllers for teams"
 * was rejected for 019 "Shared Ingress Controllers for teams", but a title without a verb is all
 * subject, and "dedicated" → "shared" names another subject. The write of 019 names 018 as similar.
 */
const NAMED_AS_SIMILAR = [
  ['moj-cloud-platform/018-Dedicated-Ingress-Controllers.md', 'moj-cloud-platform/019-Shared-Ingress-Controllers.md'],
]

test('the real ADR titles, written as decisions, supersede only the listed pairs', async () => {
  const records = adrTitles()
  assert.is(records.length, 120, 'the 120 real ADR titles of the fixture')
  const k = kernelFor()
  const fileOf = new Map<string, string>()
  const superseded: string[][] = []
  const similar = new Map<string, string[]>()
  for (const { file, title } of records) {
    const r = await k.memory.write({
      title,
      body: `Recorded in ${file}.\nWhy: the record gives the context and the options weighed.\nHow to apply: follow its decision.`,
      type: 'decision',
    })
    assert.is(r.action, 'created', `${file}: ${r.text}`)
    fileOf.set(r.id, file)
    if (r.supersedes) superseded.push([fileOf.get(r.supersedes)!, file])
    similar.set(
      file,
      (r.similar ?? []).map((s) => fileOf.get(s.id)!),
    )
  }
  assert.equal(
    superseded,
    [...REPLACEMENTS, ...SAME_HEADING].sort((a, b) => byName(a[1]!, b[1]!)),
    'superseded pairs, older → newer',
  )
  assert.is((await k.memory.list()).length, records.length - superseded.length)
  for (const [older, newer] of NAMED_AS_SIMILAR)
    assert.ok(similar.get(newer!)?.includes(older!), `${newer} names ${older} as similar`)
})

test.run()
