// The records and questions every system of `bench --peers` gets: the real ADRs as facts, SciFact
// padding, known-answer questions about the ADRs, LoCoMo questions and keyword queries.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { requireData, type BenchContext } from './context.js'
import { scifactCorpus } from './corpus.js'

/**
 * One record, within every system's limits: the title 10–80 characters (ai-devkit wants 10–100,
 * Foundry ≤ 80), the body 50 characters to 120 words (Foundry ≤ 120 words, ai-devkit ≤ 5,000
 * characters), titles unique (ai-devkit refuses a second title in a scope, server-memory drops a
 * second entity of a name, Foundry supersedes a same-statement title).
 */
export interface PeerRecord {
  title: string
  body: string
  /** Foundry's fact type: the ADRs are decisions (with `Why:` and `How to apply:` lines). */
  type: 'decision' | 'domain'
  /** The ADR file (`moj-cloud-platform/022-EKS.md`), for the records that are ADRs. */
  adr?: string
}

/** A question whose answer is one record: answered when that record is among the results. */
export interface KnownAnswer {
  question: string
  /** The ADR file that answers it. */
  adr: string
}

const SKIP = /^(readme|license)|template|index|^adr-(0+|xx)\.md$/i
/** 021 "Multi-cluster" is superseded by 036 under the same title: one record for one statement. */
const SUPERSEDED = new Set(['moj-cloud-platform/021-Multi-cluster.md'])
/** 030's heading repeats 029's (a slip in the source repository): its file name says what it is. */
const TITLE_FIXES: Record<string, string> = {
  'moj-cloud-platform/030-AWS-root-user-security.md': 'AWS root user security',
}
const COLLECTION: Record<string, string> = {
  madr: 'MADR',
  'moj-cloud-platform': 'Cloud Platform',
  'nats-architecture-and-design': 'NATS',
}
const DECISION = /^(decision|decision outcome|what.s proposed|proposal|design|overview|solution|motivation)$/i
const CONTEXT = /^(context|context and problem statement|problem statement|background)$/i
const byName = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })

/** Markdown to plain words: links keep their text, code, emphasis, headings, tables and quotes lose their marks. */
function plain(markdown: string): string[] {
  return markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/[`*_>#|]/g, ' ')
    .split(/\s+/)
    .filter((w) => w && !/^[-=:]+$/.test(w))
}

function sections(markdown: string): Map<string, string> {
  const found = new Map<string, string>()
  const parts = markdown.split(/^##+\s+/m)
  for (const part of parts.slice(1)) {
    const newline = part.indexOf('\n')
    const heading = part.slice(0, newline).trim()
    if (!found.has(heading.toLowerCase())) found.set(heading.toLowerCase(), part.slice(newline + 1))
  }
  return found
}

function firstSection(all: Map<string, string>, pattern: RegExp): string | undefined {
  for (const [heading, text] of all) if (pattern.test(heading) && plain(text).length >= 8) return text
  return undefined
}

function shortTitle(title: string, max = 80): string {
  if (title.length <= max) return title
  return title.slice(0, max).replace(/\s+\S*$/, '')
}

let adrs: PeerRecord[] | undefined
/** The real ADRs of `eval-data/adr`, one decision record each, in file order. */
export function adrRecords(ctx: BenchContext): PeerRecord[] {
  if (adrs) return adrs
  const dir = requireData(ctx, 'adr')
  const records: PeerRecord[] = []
  const titles = new Set<string>()
  for (const folder of readdirSync(dir).sort(byName)) {
    if (!statSync(join(dir, folder)).isDirectory()) continue
    for (const name of readdirSync(join(dir, folder)).sort(byName)) {
      const file = `${folder}/${name}`
      if (!name.endsWith('.md') || SKIP.test(name) || SUPERSEDED.has(file)) continue
      const markdown = readFileSync(join(dir, file), 'utf8')
      const heading = /^# (.+)$/m.exec(markdown)?.[1]?.trim()
      if (!heading) continue
      let title = TITLE_FIXES[file] ?? heading.replace(/^\d+\.?\s+/, '')
      if (title.length < 10 || titles.has(title.toLowerCase())) title = `${COLLECTION[folder] ?? folder}: ${title}`
      title = shortTitle(title)
      titles.add(title.toLowerCase())
      const all = sections(markdown)
      const decision = firstSection(all, DECISION) ?? firstSection(all, CONTEXT) ?? markdown.replace(/^# .+$/m, '')
      const context = firstSection(all, CONTEXT)
      const what = plain(decision).slice(0, 80).join(' ')
      const why =
        context && context !== decision
          ? plain(context).slice(0, 22).join(' ')
          : `recorded in ${COLLECTION[folder]} ADR ${name.replace(/\.md$/, '')}`
      const body = `${what}\nWhy: ${why}\nHow to apply: follow ${COLLECTION[folder]} ADR ${name.replace(/\.md$/, '')}.`
      records.push({ title, body, type: 'decision', adr: file })
    }
  }
  return (adrs = records)
}

/**
 * `n` padding records from SciFact abstracts (`domain` facts), titles unique across passes over
 * the corpus and against the ADRs. Deterministic.
 */
export function paddingRecords(ctx: BenchContext, n: number, offset = 0): PeerRecord[] {
  const corpus = scifactCorpus(ctx)
  const records: PeerRecord[] = []
  const titles = new Set<string>()
  const bodies = new Set<string>()
  for (let i = offset; i < offset + n; i++) {
    const doc = corpus[i % corpus.length]!
    const round = Math.floor(i / corpus.length)
    const words = doc.text.split(/\s+/).filter(Boolean)
    const start = (round * 37) % Math.max(1, words.length - 100)
    const body = words.slice(start, start + 40 + ((i * 7) % 60)).join(' ')
    // A title repeats in a later pass over the corpus: it says which pass.
    let title = shortTitle(doc.title.trim(), round ? 68 : 80)
    if (round) title = `${title} (pass ${round + 1})`
    // SciFact has a few titles twice, and some shorter than 10 characters: those get the document id.
    if (title.length < 10 || titles.has(title.toLowerCase())) title = `${shortTitle(title, 60)} (SciFact ${doc._id})`
    titles.add(title.toLowerCase())
    // ai-devkit refuses a second record of the same content: a later pass over a short abstract cuts the same words, so it says which pass.
    let text = body.length >= 50 ? body : `${body} (SciFact abstract ${doc._id}, ${doc.title})`
    if (round) text = `${text} (pass ${round + 1})`
    if (bodies.has(text)) text = `${text} (SciFact ${doc._id})`
    bodies.add(text)
    records.push({ title, body: text, type: 'domain' })
  }
  return records
}

/** The ADRs, then SciFact padding up to `size` records. */
export function peerRecords(ctx: BenchContext, size: number): PeerRecord[] {
  const real = adrRecords(ctx)
  const padding = paddingRecords(ctx, Math.max(0, size - real.length))
  // A SciFact title may equal an ADR title only by accident; both are kept distinct all the same.
  const taken = new Set(real.map((r) => r.title.toLowerCase()))
  return [
    ...real,
    ...padding.map((r) => (taken.has(r.title.toLowerCase()) ? { ...r, title: `${r.title} (SciFact)` } : r)),
  ]
}

/** LoCoMo's questions, in file order: question-shaped queries whose answers are not in these records (the latency load). */
export function locomoQuestions(ctx: BenchContext, n: number): string[] {
  const data = JSON.parse(readFileSync(requireData(ctx, 'locomo/locomo10.json'), 'utf8')) as Array<{
    qa: Array<{ question: string }>
  }>
  const questions = data.flatMap((c) => c.qa.map((q) => q.question)).filter((q) => q.length >= 3 && q.length <= 500)
  // Spread over the ten conversations rather than the first one's.
  const step = Math.max(1, Math.floor(questions.length / n))
  return Array.from({ length: Math.min(n, questions.length) }, (_, i) => questions[(i * step) % questions.length]!)
}

/**
 * Keyword queries: two consecutive words of a record title (a phrase server-memory's substring
 * search can match too), over the ADRs and the padding alike.
 */
export function keywordQueries(records: PeerRecord[], n: number): string[] {
  const queries: string[] = []
  const step = Math.max(1, Math.floor(records.length / n))
  for (let i = 0; queries.length < n && i < records.length * 2; i += step) {
    const words = records[i % records.length]!.title.split(/\s+/)
    const word = (w: string | undefined) => w !== undefined && /^[\p{L}\p{N}-]{3,}$/u.test(w)
    const pair = words.findIndex((w, k) => word(w) && word(words[k + 1]))
    if (pair >= 0) queries.push(`${words[pair]} ${words[pair + 1]}`)
    else if (words.some(word)) queries.push(words.find(word)!)
    if (i + step >= records.length * 2) break
  }
  return queries
}

/**
 * 50 questions as a developer would ask them, each answered by one ADR. Written by hand for this
 * benchmark from the records' content; they share some words with the record, as real questions do.
 */
export const KNOWN_ANSWERS: KnownAnswer[] = [
  { question: 'Under which licences is the MADR template published?', adr: 'madr/0001-use-CC0-or-MIT-as-license.md' },
  {
    question: 'Should section headings in the template carry numbers?',
    adr: 'madr/0002-do-not-use-numbers-in-headings.md',
  },
  { question: 'Do we write our own table of contents generator?', adr: 'madr/0004-write-own-toc-tool.md' },
  { question: 'Which separator goes between words in ADR file names?', adr: 'madr/0005-use-dashes-in-filenames.md' },
  { question: 'Where is the status of a decision record kept?', adr: 'madr/0008-add-status-field.md' },
  { question: 'How can one ADR link to another ADR?', adr: 'madr/0009-support-links-between-adrs-inside-an-adrs.md' },
  { question: 'Which character marks list items in the markdown?', adr: 'madr/0011-use-asterisk-as-list-marker.md' },
  {
    question: 'How are placeholders written in the template?',
    adr: 'madr/0012-use-curly-braces-to-denote-placeholder.md',
  },
  {
    question: 'Where do metadata like date and deciders go in a record?',
    adr: 'madr/0013-use-yaml-front-matter-for-meta-data.md',
  },
  { question: 'Can an argument be neutral rather than pro or con?', adr: 'madr/0014-allow-neutral-arguments.md' },
  {
    question: 'Do we record who was consulted and who was informed?',
    adr: 'madr/0015-include-consulting-informed-of-raci.md',
  },
  {
    question: 'Which heading describes how the decision is confirmed?',
    adr: 'madr/0018-use-confirmation-as-heading.md',
  },
  {
    question: 'Which hosted Elasticsearch do we send logs to?',
    adr: 'moj-cloud-platform/001-Use-AWS-hosted-elasticsearch.md',
  },
  {
    question: 'Which continuous integration server runs our pipelines?',
    adr: 'moj-cloud-platform/003-Use-Concourse-CI.md',
  },
  {
    question: 'What do we use to run containerised applications?',
    adr: 'moj-cloud-platform/004-use-kubernetes-for-container-management.md',
  },
  {
    question: 'How are we alerted when the number of ECR images grows?',
    adr: 'moj-cloud-platform/005-ECR-monitoring-and-alerting.md',
  },
  {
    question: 'Which identity provider do users sign in with?',
    adr: 'moj-cloud-platform/006-Use-github-as-user-directory.md',
  },
  {
    question: 'Can teams deploy from a third party CI service?',
    adr: 'moj-cloud-platform/008-Support-Deployments-from-Third-Party-CI.md',
  },
  {
    question: 'What naming convention do clusters follow?',
    adr: 'moj-cloud-platform/009-Naming-convention-for-clusters.md',
  },
  {
    question: 'Which policy agent enforces rules in the cluster?',
    adr: 'moj-cloud-platform/011-Introduce-Open-Policy-Agent.md',
  },
  {
    question: 'Do dev, staging and prod share one cluster?',
    adr: 'moj-cloud-platform/012-One-cluster-for-dev-staging-prod.md',
  },
  {
    question: 'Which test framework checks the clusters?',
    adr: 'moj-cloud-platform/013-Use-RSpec-for-cluster-tests.md',
  },
  {
    question: 'How do we keep our Terraform modules current?',
    adr: 'moj-cloud-platform/015-Keeping-Terraform-modules-up-to-date.md',
  },
  {
    question: 'Which service teams may open Kibana?',
    adr: 'moj-cloud-platform/016-Kibana-is-open-to-all-service-teams.md',
  },
  {
    question: 'What case do variable names use in YAML and Terraform?',
    adr: 'moj-cloud-platform/017-Variable-Naming.md',
  },
  {
    question: 'How does the platform team get into the AWS console?',
    adr: 'moj-cloud-platform/024-SSO-for-CP-Team-to-access-AWS.md',
  },
  {
    question: 'Do we run Prometheus ourselves or use a managed one?',
    adr: 'moj-cloud-platform/026-Managed-Prometheus.md',
  },
  {
    question: 'How are repositories scanned for vulnerabilities?',
    adr: 'moj-cloud-platform/028-Repo-vulnerability-scanning.md',
  },
  { question: 'Which TLS versions are no longer accepted?', adr: 'moj-cloud-platform/035-deprecated-tls-versions.md' },
  { question: 'Do we offer Lambda or functions as a service?', adr: 'moj-cloud-platform/037-serverless.md' },
  {
    question: 'What inspects network traffic with a firewall in AWS?',
    adr: 'moj-cloud-platform/039-AWS-Network-Firewall.md',
  },
  {
    question: 'What happened to the cloud platform command line tool?',
    adr: 'moj-cloud-platform/041-decommission-cp-cli-tool.md',
  },
  { question: 'Which CIDR ranges does the new platform use?', adr: 'moj-cloud-platform/043-new-cidr-ranges.md' },
  {
    question: 'Is the EKS API endpoint public or private?',
    adr: 'moj-cloud-platform/045-use-a-private-eks-endpoint.md',
  },
  { question: 'What scales the nodes of the cluster?', adr: 'moj-cloud-platform/047-use-karpenter-for-scaling.md' },
  {
    question: 'Does each business unit get its own cluster?',
    adr: 'moj-cloud-platform/048-per-business-unit-clusters.md',
  },
  {
    question: 'How do we purge a stream by subject or up to a sequence?',
    adr: 'nats-architecture-and-design/ADR-10.md',
  },
  { question: 'How do clients resolve host names of servers?', adr: 'nats-architecture-and-design/ADR-11.md' },
  { question: 'Is JetStream data encrypted on disk?', adr: 'nats-architecture-and-design/ADR-12.md' },
  { question: 'Which consumer delivers messages strictly in order?', adr: 'nats-architecture-and-design/ADR-17.md' },
  { question: 'How are object stores built on JetStream?', adr: 'nats-architecture-and-design/ADR-20.md' },
  {
    question: 'Should a publish be retried when there are no responders?',
    adr: 'nats-architecture-and-design/ADR-22.md',
  },
  { question: 'How does the authorization callout work?', adr: 'nats-architecture-and-design/ADR-26.md' },
  { question: 'Can the file store compress its blocks?', adr: 'nats-architecture-and-design/ADR-35.md' },
  { question: 'How are peer certificates checked with OCSP?', adr: 'nats-architecture-and-design/ADR-38.md' },
  { question: 'Can a single message carry its own TTL?', adr: 'nats-architecture-and-design/ADR-43.md' },
  { question: 'How does the distributed counter work?', adr: 'nats-architecture-and-design/ADR-49.md' },
  {
    question: 'What does a server announce when entering lame duck mode?',
    adr: 'nats-architecture-and-design/ADR-5.md',
  },
  { question: 'Can a batch of messages be published atomically?', adr: 'nats-architecture-and-design/ADR-50.md' },
  { question: 'How are messages scheduled for later delivery?', adr: 'nats-architecture-and-design/ADR-51.md' },
]
