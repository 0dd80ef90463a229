import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createFactSet } from '../src/memory/fact-set.js'
import { SIMILAR_SCAN, statementKeys, subjectTokens, titleTokens } from '../src/memory/facts.js'
import type { Fact } from '../src/index.js'
import { sampleFact } from '../src/testing/index.js'
import { kernelFor } from './helpers.js'

type Title = string | { title: string; body: string }
/** [older, newer, does the newer supersede the older?, what the pair shows] */
type Pair = [Title, Title, 'supersedes' | 'keeps', string]

/** The labelled table: written in this order, same type and scope, each pair in a scope of its own. */
const PAIRS: Pair[] = [
  // The same statement with a changed value.
  ['API timeout is 30 seconds', 'API timeout is 60 seconds', 'supersedes', 'a number with a unit after a copula'],
  ['API timeout is 30 seconds', 'API timeout is 1 minute', 'supersedes', 'a quantity for a quantity, unit changed'],
  ['Upload limit is 10 MB', 'Upload limit is 25 MB', 'supersedes', 'size'],
  [
    'Uploads over 10 MB are rejected',
    'Uploads over 20 MB are rejected',
    'supersedes',
    'a quantity is a value even before the verb',
  ],
  ['Request timeout: 500ms', 'Request timeout: 750ms', 'supersedes', 'a colon assigns; a unit attached to the number'],
  ['Cache TTL defaults to 5 minutes', 'Cache TTL defaults to 10 minutes', 'supersedes', 'defaults to'],
  ['Log retention is 30 days', 'Log retention is 90 days', 'supersedes', 'days'],
  ['Checkout SLO is 99.9%', 'Checkout SLO is 99.95%', 'supersedes', 'a percentage'],
  [
    'Plan A costs $5 a month',
    'Plan A costs $7 a month',
    'supersedes',
    'money is a quantity; the single letter stays in the subject',
  ],
  ['Deploys need 2 approvals', 'Deploys need 3 approvals', 'supersedes', 'a count after an assignment verb'],
  ['Minimum Node version is 18', 'Minimum Node version is 20', 'supersedes', 'a bare number in the predicate'],
  ['Billing uses Postgres 14', 'Billing uses Postgres 16', 'supersedes', 'a version after uses'],
  ['Supported TLS version is 1.2', 'Supported TLS version is 1.3', 'supersedes', 'a dotted version'],
  ['Active cluster is live-0', 'Active cluster is live-1', 'supersedes', 'an identifier after a copula'],
  [
    'Order 7 is shipped from warehouse A',
    'Order 7 is shipped from warehouse B',
    'supersedes',
    'a single-letter name after a copula, same order',
  ],
  ['App entry point is src/app.ts', 'App entry point is src/main.ts', 'supersedes', 'a path after a copula'],
  ['Retries are enabled', 'Retries are disabled', 'supersedes', 'a state'],
  ['API v1 is deprecated', 'API v1 is removed', 'supersedes', 'a lifecycle state, same version'],
  ['Node 18 is supported', 'Node 18 is not supported', 'supersedes', 'negation added'],
  ["Node 18 isn't supported", 'Node 18 is supported', 'supersedes', "negation removed (n't is not)"],
  ['Deploys on Fridays are never allowed', 'Deploys on Fridays are allowed', 'supersedes', 'never removed'],
  [
    'Money is stored in integer cents',
    'money is stored in integer cents.',
    'supersedes',
    'the same title (case, punctuation) with a new body',
  ],
  [
    { title: 'Invoices are immutable once sent', body: 'Corrections are credit notes.' },
    { title: 'Invoices are immutable once sent', body: 'Corrections are new invoices.' },
    'supersedes',
    'a body rewritten under the same title',
  ],
  [
    { title: 'The payment gateway is Stripe', body: 'EU cards.' },
    { title: 'Payment gateway is Stripe', body: 'All cards.' },
    'supersedes',
    'the same title without the article, new body',
  ],

  // Another fact: the subject differs (identifiers are part of it).
  ['API v1 endpoints are deprecated', 'API v2 endpoints are deprecated', 'keeps', 'a version in the subject'],
  ['Order 7 ships from warehouse A', 'Order 8 ships from warehouse B', 'keeps', 'an id and a single letter'],
  ['Node 18 is not supported', 'Node 20 is not supported on Alpine', 'keeps', 'another version, narrower'],
  ['Node 20 is not supported on Alpine', 'Node 22 is not supported', 'keeps', 'another version'],
  ['Node 18 is not supported', 'Node 22 is not supported', 'keeps', 'a number before the verb names the subject'],
  ['Python 3.11 is required', 'Python 3.12 is required', 'keeps', 'a dotted version in the subject'],
  [
    'Module billing rule 3 keeps handler h3 idempotent',
    'Module billing rule 4 keeps handler h4 idempotent',
    'keeps',
    'ids with digits',
  ],
  ['Handler h37 retries failed jobs', 'Handler h38 retries failed jobs', 'keeps', 'a name with digits'],
  ['ADR-12 is accepted', 'ADR-13 is accepted', 'keeps', 'a record id'],
  ['Live-0 cluster is frozen', 'Live-1 cluster is frozen', 'keeps', 'a cluster name'],
  ['Warehouse A ships on Mondays', 'Warehouse B ships on Mondays', 'keeps', 'a single-letter name'],
  ['src/app.ts is the entry point', 'src/main.ts is the entry point', 'keeps', 'a path in the subject'],
  ['Port 8080 serves metrics', 'Port 9090 serves metrics', 'keeps', 'a number without a unit, no copula'],
  ['Payments API timeout is 30 seconds', 'Orders API timeout is 30 seconds', 'keeps', 'a word in the subject'],
  [
    'Dedicated Ingress Controllers for teams',
    'Shared Ingress Controllers for teams',
    'keeps',
    'a title without a verb is all subject',
  ],
  ['Use Concourse CI', 'Use GitHub Actions', 'keeps', 'an imperative has no subject to share'],

  // Another fact: the predicate changes more than a value.
  ['Billing uses Postgres', 'Billing uses Redis', 'keeps', 'a word after uses: both may hold'],
  ['Frontend uses React', 'Frontend uses TypeScript', 'keeps', 'a word after uses: both hold'],
  ['Order IDs are UUIDs', 'Order IDs are immutable', 'keeps', 'two properties of one subject'],
  ['Billing service is idempotent', 'Billing service is stateless', 'keeps', 'two adjectives: both hold'],
  ['Database is encrypted', 'Database is replicated', 'keeps', 'two adjectives: both hold'],
  [
    'Log level is debug',
    'Log level is info',
    'keeps',
    'a word, not a value: named as similar instead (one word cannot be told from a second property)',
  ],
  [
    'Service A requires service B',
    'Service A requires service C',
    'keeps',
    'an identifier after a verb that is not a copula: both may hold',
  ],
  ['API timeout is 30 seconds', 'API timeout is 30 seconds for reports', 'keeps', 'a qualifier added: narrower'],
  ['Node 20 is not supported on Alpine', 'Node 20 is not supported', 'keeps', 'a qualifier dropped: broader'],
  ['API timeout is 30 seconds for reports', 'API timeout is 60 seconds for exports', 'keeps', 'two changes'],
  ['Retries are enabled in staging', 'Retries are disabled in production', 'keeps', 'two changes'],
  ['Uploads over 10 MB are rejected', 'Uploads over 20 MB are compressed', 'keeps', 'a quantity and a predicate'],

  // Another fact: reordered words.
  ['Service A calls service B', 'Service B calls service A', 'keeps', 'reordered names'],
  ['Retries use exponential backoff', 'Exponential backoff is used for retries', 'keeps', 'reordered statement'],
  ['Reports run after billing', 'Billing runs after reports', 'keeps', 'reordered subject and object'],
]

const titleOf = (t: Title) => (typeof t === 'string' ? t : t.title)
const bodyOf = (t: Title, fallback: string) => (typeof t === 'string' ? fallback : t.body)

test(`the labelled table: ${PAIRS.length} title pairs, each superseding exactly when labelled so`, async () => {
  assert.ok(PAIRS.length >= 40)
  const k = kernelFor()
  const wrong: string[] = []
  for (const [i, [older, newer, label, shows]] of PAIRS.entries()) {
    const scope = `module:pair-${i}`
    const first = await k.memory.write({
      title: titleOf(older),
      body: bodyOf(older, 'Stated first.'),
      type: 'constraint',
      scope,
    })
    const second = await k.memory.write({
      title: titleOf(newer),
      body: bodyOf(newer, 'Stated later.'),
      type: 'constraint',
      scope,
    })
    assert.is(second.action, 'created', `${titleOf(newer)}: written`)
    const got = second.supersedes === first.id ? 'supersedes' : 'keeps'
    if (got !== label)
      wrong.push(
        `"${titleOf(older)}" → "${titleOf(newer)}": expected ${label} (${shows}), got ${got}${second.similar ? ` (${second.similar[0]?.reason})` : ''}`,
      )
  }
  assert.equal(wrong, [], `${PAIRS.length - wrong.length}/${PAIRS.length} pairs as labelled`)
})

test('identifiers stay whole tokens: versions, ids, names with digits, single-letter names, paths', () => {
  assert.equal(titleTokens('API v1.2.3 endpoints are deprecated'), ['api', 'v1.2.3', 'endpoints', 'are', 'deprecated'])
  assert.equal(titleTokens('Migrate from live-0 to ADR-12'), ['migrate', 'from', 'live-0', 'to', 'adr-12'])
  assert.equal(titleTokens('Order 7 ships from warehouse A'), ['order', '7', 'ships', 'from', 'warehouse', 'a'])
  assert.equal(titleTokens('A timeout: 30s in src/app.ts, the default'), [
    'timeout',
    '=',
    '30s',
    'in',
    'src/app.ts',
    'default',
  ])
  assert.equal(titleTokens("Node 18 isn't supported"), ['node', '18', 'is', 'not', 'supported'])
})

test("the issue's chain: Node 18, then Node 20 on Alpine, then Node 22 all stay active, each naming the closest earlier one", async () => {
  const k = kernelFor()
  await k.memory.write({ title: 'Node 18 is not supported', body: 'EOL.', type: 'constraint' })
  const alpine = await k.memory.write({
    title: 'Node 20 is not supported on Alpine',
    body: 'musl issues.',
    type: 'constraint',
  })
  const last = await k.memory.write({ title: 'Node 22 is not supported', body: 'Too new.', type: 'constraint' })
  assert.is(alpine.supersedes, undefined)
  assert.is(last.supersedes, undefined)
  assert.equal(
    (await k.memory.list()).map((f) => f.title),
    ['Node 18 is not supported', 'Node 20 is not supported on Alpine', 'Node 22 is not supported'],
  )
  assert.equal(
    last.similar?.map((s) => s.id),
    ['fact-0001', 'fact-0002'],
    'the same wording first, then the longer one',
  )
  assert.is(last.similar?.[0]?.reason, 'different subject: "18" → "22"')
})

test('1,000 conventions "Module <topic> rule <i> keeps handler h<i> idempotent" over 10 topics stay 1,000 active facts', async () => {
  const k = kernelFor()
  const topics = ['billing', 'orders', 'payments', 'search', 'auth', 'shipping', 'catalog', 'cart', 'reports', 'users']
  for (let i = 0; i < 1000; i++) {
    const r = await k.memory.write({
      title: `Module ${topics[i % 10]} rule ${i} keeps handler h${i} idempotent`,
      body: `Handler h${i} tolerates replays.`,
      type: 'convention',
    })
    if (r.supersedes) assert.unreachable(`rule ${i} superseded ${r.supersedes}`)
  }
  assert.is(await k.memory.activeCount(), 1000)
  assert.is((await k.memory.list()).length, 1000)
})

test('the facts a write examines stay bounded as memory grows: statement keys, then at most SIMILAR_SCAN close ones', () => {
  const fact = (n: number, title: string): Fact =>
    ({
      ...sampleFact(n),
      expires: undefined,
      supersedes: undefined,
      type: 'convention',
      scope: 'project',
      title,
    }) as Fact
  for (const size of [100, 20_000]) {
    const set = createFactSet(
      Array.from({ length: size }, (_, i) => fact(i + 1, `Team t${i} owns service s${i} in region eu`)),
    )
    set.set(fact(size + 1, 'Billing timeout is 30 seconds'))
    const title = titleTokens('Team t7 owns service s7 in region us')
    assert.equal(
      set.statementCandidates('convention', 'project', statementKeys(title), '2026-01-01'),
      [],
      `${size}: no same statement`,
    )
    const close = set.subjectCandidates('convention', 'project', subjectTokens(title), '2026-01-01', SIMILAR_SCAN)
    assert.ok(close.length <= SIMILAR_SCAN, `${size}: ${close.length} examined`)
    assert.ok(
      close.some((f) => f.title === 'Team t7 owns service s7 in region eu'),
      `${size}: the rarest tokens find the close one`,
    )
    const timeout = titleTokens('Billing timeout is 60 seconds')
    assert.equal(
      set.statementCandidates('convention', 'project', statementKeys(timeout), '2026-01-01').map((f) => f.title),
      ['Billing timeout is 30 seconds'],
      `${size}: found by key`,
    )
  }
})

test.run()
