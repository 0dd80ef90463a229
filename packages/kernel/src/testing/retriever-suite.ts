import { relevanceUnit } from '../memory/service.js'
import type { RetrievalDoc, Retriever, RetrieverCapabilities, SnapshotStore } from '../retrieval.js'
import type { FactType } from '../schema/fact.js'
import { calibrate, median } from './calibrate.js'
import { equal, ok } from './expect.js'
import { register, type SuiteOptions, type TestFn } from './register.js'

/**
 * Every behaviour a `Retriever` owes the kernel. `make(store)` returns a retriever over fresh state;
 * called twice with the same store, it must return retrievers over the same persisted state (the
 * suite attaches `store` itself, so retrievers that keep state elsewhere key it by the store). The
 * stemming, prefix, fuzzy and segmentation cases check the ability when the retriever declares it in
 * `capabilities`, and otherwise that the exact words still match.
 */
export function retrieverSuite(
  test: TestFn,
  make: (store: SnapshotStore) => Retriever | Promise<Retriever>,
  options: SuiteOptions = {},
): void {
  register(test, RETRIEVER_CASES, async () => new Bench(make), options)
}

/** In-memory snapshot store, for the suites and for tests. */
export function memorySnapshotStore(): SnapshotStore & { names(): string[] } {
  const blobs = new Map<string, string>()
  return {
    read: async (name) => blobs.get(name),
    write: async (name, text) => void blobs.set(name, text),
    remove: async (name) => void blobs.delete(name),
    names: () => [...blobs.keys()],
  }
}

class Bench {
  readonly store = memorySnapshotStore()
  private opened: Retriever[] = []
  constructor(private readonly factory: (store: SnapshotStore) => Retriever | Promise<Retriever>) {}
  async open(): Promise<Retriever> {
    const r = await this.factory(this.store)
    r.attach?.(this.store)
    this.opened.push(r)
    return r
  }
  async close() {
    for (const r of this.opened) await r.close?.()
  }
}

const doc = (id: string, title: string, body = '', extra: Partial<RetrievalDoc> = {}): RetrievalDoc => ({
  id,
  title,
  body,
  tags: [],
  type: 'decision',
  scope: 'project',
  ...extra,
})

/** Fifty plausible facts about unrelated subjects, so ranking is tested against noise. */
export function distractors(n = 50): RetrievalDoc[] {
  const subjects = [
    'logging',
    'caching',
    'payments',
    'search',
    'auth',
    'queues',
    'billing',
    'emails',
    'metrics',
    'uploads',
  ]
  const verbs = ['uses', 'requires', 'forbids', 'prefers', 'documents']
  const objects = [
    'structured JSON',
    'Redis',
    'idempotency keys',
    'OpenSearch',
    'OAuth tokens',
    'SQS',
    'Stripe',
    'templates',
    'Prometheus',
    'S3',
  ]
  return Array.from({ length: n }, (_, i) =>
    doc(
      `fact-${String(1000 + i)}`,
      `${subjects[i % 10]} ${verbs[i % 5]} ${objects[(i * 3) % 10]}`,
      `Why: team standard number ${i}. How to apply: check the ${subjects[(i + 1) % 10]} module.`,
      {
        type: (['decision', 'constraint', 'convention'] as FactType[])[i % 3]!,
      },
    ),
  )
}

type Case = [string, (b: Bench) => Promise<void>]
const ids = (hits: Array<{ id: string }>) => hits.map((h) => h.id)
const kubernetes = doc('fact-0001', 'Kubernetes manifests live in the infra repository')
const approvals = doc(
  'fact-0001',
  'Deployments require two approvals',
  'Production releases are approved by two reviewers.',
)
/** Facts written without spaces between words, and one mixing English and Japanese. */
const unspaced = [
  doc('fact-0001', '注文は決済後に確定する', '在庫は毎晩同期される'),
  doc('fact-0002', '数据库迁移必须先在预发布环境验证'),
  doc('fact-0003', 'การชำระเงินต้องยืนยันภายในสามสิบนาที'),
  doc('fact-0004', 'Deployments require two approvals', '本番リリースには二名の承認が必要'),
]

/**
 * A case for an optional ability: `check` when the retriever declares it, else `exact`: what a
 * retriever without it still owes (the words as written match).
 */
const ability =
  (name: keyof RetrieverCapabilities, check: (r: Retriever) => Promise<void>, exact: (r: Retriever) => Promise<void>) =>
  async (b: Bench) => {
    const r = await b.open()
    await (r.capabilities?.[name] ? check(r) : exact(r))
  }

/**
 * How far a declared `scoreScale` may be from the measured one, as a fraction. Within 30%, three
 * distinctive words (the hooks' default `promptContext.minScore` 3) get a relevance of 2.1 to 3.9:
 * never a whole word off.
 */
const SCALE_TOLERANCE = 0.3
const near = (value: number, target: number) => Math.abs(value / target - 1) <= SCALE_TOLERANCE

const RETRIEVER_CASES: Case[] = [
  [
    'a fresh retriever reflects nothing and finds nothing',
    async (b) => {
      const r = await b.open()
      equal(await r.revision(), undefined, 'no revision')
      equal(await r.search({ text: 'anything', limit: 5 }), [], 'no hits')
    },
  ],
  [
    'apply sets the revision and makes documents searchable',
    async (b) => {
      const r = await b.open()
      await r.apply({
        revision: '7',
        reset: true,
        upsert: [doc('fact-0001', 'Persistence layer uses Flyway, not Liquibase', 'Plain SQL migrations.')],
        remove: [],
      })
      equal(await r.revision(), '7', 'revision')
      equal(ids(await r.search({ text: 'flyway', limit: 5 })), ['fact-0001'], 'found by a title word')
      equal(ids(await r.search({ text: 'migrations', limit: 5 })), ['fact-0001'], 'found by a body word')
      equal(await r.search({ text: 'kubernetes', limit: 5 }), [], 'absent word finds nothing')
    },
  ],
  [
    'a differently inflected query finds its document (stemming)',
    ability(
      'stemming',
      async (r) => {
        await r.apply({ revision: '1', reset: true, upsert: [...distractors(), approvals], remove: [] })
        equal(
          ids(await r.search({ text: 'deploying approval', limit: 3 }))[0],
          'fact-0001',
          'deploying/approval → deployments/approvals',
        )
        equal(
          ids(await r.search({ text: 'approved release', limit: 3 }))[0],
          'fact-0001',
          'approved/release → approvals/releases',
        )
      },
      async (r) => {
        await r.apply({ revision: '1', reset: true, upsert: [...distractors(), approvals], remove: [] })
        equal(
          ids(await r.search({ text: 'deployments approvals', limit: 3 }))[0],
          'fact-0001',
          'without stemming: the words as written',
        )
        equal(
          ids(await r.search({ text: 'approved releases', limit: 3 }))[0],
          'fact-0001',
          'without stemming: the body words as written',
        )
      },
    ),
  ],
  [
    'stop words alone match nothing',
    async (b) => {
      const r = await b.open()
      await r.apply({
        revision: '1',
        reset: true,
        upsert: [doc('fact-0001', 'The cache is the source of truth for sessions')],
        remove: [],
      })
      equal(await r.search({ text: 'the of is', limit: 5 }), [], 'no hits for stop words')
    },
  ],
  [
    'a title match outranks a body match, and hits come best first',
    async (b) => {
      const r = await b.open()
      await r.apply({
        revision: '1',
        reset: true,
        upsert: [
          ...distractors(),
          doc('fact-0002', 'Sessions expire after idle time', 'Certificates are renewed by the gateway.'),
          doc('fact-0001', 'Certificates are rotated every 24 hours', 'Rotation is automatic.'),
        ],
        remove: [],
      })
      const hits = await r.search({ text: 'certificates', limit: 10 })
      equal(hits[0]?.id, 'fact-0001', 'title match first')
      ok(
        hits.some((h) => h.id === 'fact-0002'),
        'body match present',
      )
      for (let i = 1; i < hits.length; i++) ok(hits[i - 1]!.score >= hits[i]!.score, 'scores do not increase')
    },
  ],
  [
    'limit caps the hits',
    async (b) => {
      const r = await b.open()
      await r.apply({ revision: '1', reset: true, upsert: distractors(), remove: [] })
      equal((await r.search({ text: 'module team standard', limit: 3 })).length, 3, 'three hits')
      equal((await r.search({ text: 'module team standard', limit: 1 })).length, 1, 'one hit')
    },
  ],
  [
    'type and scope filters narrow the hits',
    async (b) => {
      const r = await b.open()
      await r.apply({
        revision: '1',
        reset: true,
        upsert: [
          doc('fact-0001', 'Invoices are immutable', '', { type: 'constraint', scope: 'module:billing' }),
          doc('fact-0002', 'Invoices use UTC dates', '', { type: 'convention', scope: 'module:billing' }),
          doc('fact-0003', 'Invoices are emailed nightly', '', { type: 'convention', scope: 'project' }),
        ],
        remove: [],
      })
      equal(
        new Set(ids(await r.search({ text: 'invoices', limit: 10, type: 'convention' }))),
        new Set(['fact-0002', 'fact-0003']),
        'type filter',
      )
      equal(
        ids(await r.search({ text: 'invoices', limit: 10, scope: 'module:billing', type: 'convention' })),
        ['fact-0002'],
        'type and scope',
      )
      equal(await r.search({ text: 'invoices', limit: 10, type: 'risk' }), [], 'no fact of that type')
    },
  ],
  [
    'incremental changes add, replace and remove documents',
    async (b) => {
      const r = await b.open()
      await r.apply({
        revision: '1',
        reset: true,
        upsert: [doc('fact-0001', 'Payments use Stripe'), doc('fact-0002', 'Emails use Postmark')],
        remove: [],
      })
      await r.apply({
        revision: '2',
        upsert: [doc('fact-0003', 'Queues use SQS'), doc('fact-0002', 'Emails use SendGrid')],
        remove: ['fact-0001'],
      })
      equal(await r.revision(), '2', 'revision advanced')
      equal(await r.search({ text: 'stripe', limit: 5 }), [], 'removed')
      equal(await r.search({ text: 'postmark', limit: 5 }), [], 'old text of a replaced document is gone')
      equal(ids(await r.search({ text: 'sendgrid', limit: 5 })), ['fact-0002'], 'new text found')
      equal(ids(await r.search({ text: 'sqs', limit: 5 })), ['fact-0003'], 'added')
      await r.apply({ revision: '3', upsert: [], remove: ['fact-9999'] })
      equal(await r.revision(), '3', 'removing an unknown id is harmless')
    },
  ],
  [
    'a change set may repeat an id: the last version wins',
    async (b) => {
      const r = await b.open()
      await r.apply({
        revision: '1',
        reset: true,
        upsert: [doc('fact-0001', 'Cache uses Memcached'), doc('fact-0001', 'Cache uses Redis')],
        remove: [],
      })
      equal(ids(await r.search({ text: 'redis', limit: 5 })), ['fact-0001'], 'last version')
      equal(await r.search({ text: 'memcached', limit: 5 }), [], 'first version dropped')
    },
  ],
  [
    'reset replaces everything',
    async (b) => {
      const r = await b.open()
      await r.apply({ revision: '1', reset: true, upsert: [doc('fact-0001', 'Payments use Stripe')], remove: [] })
      await r.apply({ revision: '2', reset: true, upsert: [doc('fact-0002', 'Payments use Adyen')], remove: [] })
      equal(ids(await r.search({ text: 'payments', limit: 5 })), ['fact-0002'], 'only the new set')
    },
  ],
  [
    'state persists: a new retriever on the same store answers without re-indexing',
    async (b) => {
      const first = await b.open()
      await first.apply({
        revision: '5',
        reset: true,
        upsert: [...distractors(), doc('fact-0001', 'Deployments require two approvals')],
        remove: [],
      })
      await first.apply({ revision: '6', upsert: [doc('fact-0002', 'Rollbacks are automated')], remove: [] })
      await first.flush?.(true)
      const second = await b.open()
      equal(await second.revision(), '6', 'restored revision')
      equal(ids(await second.search({ text: 'approvals deployment', limit: 1 })), ['fact-0001'], 'restored documents')
      equal(ids(await second.search({ text: 'rollback', limit: 1 })), ['fact-0002'], 'incremental change persisted')
      equal(
        await second.search({ text: 'approvals', limit: 5 }),
        await first.search({ text: 'approvals', limit: 5 }),
        'same hits and scores',
      )
    },
  ],
  [
    'a prefix of a word finds it',
    ability(
      'prefix',
      async (r) => {
        await r.apply({ revision: '1', reset: true, upsert: [...distractors(), kubernetes], remove: [] })
        equal(ids(await r.search({ text: 'kubernet', limit: 1 })), ['fact-0001'], 'prefix match')
      },
      async (r) => {
        await r.apply({ revision: '1', reset: true, upsert: [...distractors(), kubernetes], remove: [] })
        equal(
          ids(await r.search({ text: 'kubernetes', limit: 1 })),
          ['fact-0001'],
          'without prefix matching: the whole word',
        )
      },
    ),
  ],
  [
    'a small typo still finds the word (fuzzy)',
    ability(
      'fuzzy',
      async (r) => {
        await r.apply({ revision: '1', reset: true, upsert: [...distractors(), kubernetes], remove: [] })
        equal(ids(await r.search({ text: 'kubernetse', limit: 1 })), ['fact-0001'], 'one transposition')
      },
      async (r) => {
        await r.apply({ revision: '1', reset: true, upsert: [...distractors(), kubernetes], remove: [] })
        equal(
          ids(await r.search({ text: 'kubernetes', limit: 1 })),
          ['fact-0001'],
          'without fuzzy matching: the word spelt right',
        )
      },
    ),
  ],
  [
    'text written without spaces is found by one of its words (Japanese, Chinese, Thai)',
    ability(
      'segmentation',
      async (r) => {
        await r.apply({ revision: '1', reset: true, upsert: [...distractors(), ...unspaced], remove: [] })
        equal(ids(await r.search({ text: '決済', limit: 5 })), ['fact-0001'], 'Japanese: a title word')
        equal(ids(await r.search({ text: '同期', limit: 5 })), ['fact-0001'], 'Japanese: a body word')
        equal(ids(await r.search({ text: '迁移', limit: 5 })), ['fact-0002'], 'Chinese')
        equal(ids(await r.search({ text: 'ยืนยัน', limit: 5 })), ['fact-0003'], 'Thai')
        equal(
          ids(await r.search({ text: 'deploying 承認', limit: 1 })),
          ['fact-0004'],
          'English stemming and a Japanese word in one query',
        )
        equal(
          ids(await r.search({ text: '注文の決済', limit: 1 })),
          ['fact-0001'],
          'a query written without spaces is split too',
        )
        for (const word of ['配送', '物流', 'สินค้า'])
          equal(await r.search({ text: word, limit: 5 }), [], `${word}: a word no fact holds finds nothing`)
      },
      async (r) => {
        await r.apply({ revision: '1', reset: true, upsert: [...distractors(), ...unspaced], remove: [] })
        equal(
          ids(await r.search({ text: '注文は決済後に確定する', limit: 1 })),
          ['fact-0001'],
          'without segmentation: the whole run as written',
        )
        equal(
          ids(await r.search({ text: '数据库迁移必须先在预发布环境验证', limit: 1 })),
          ['fact-0002'],
          'without segmentation: the whole Chinese run',
        )
        for (const word of ['配送', '物流', 'สินค้า'])
          equal(await r.search({ text: word, limit: 5 }), [], `${word}: a word no fact holds finds nothing`)
      },
    ),
  ],
  [
    'relevance: the declared scoreScale is the measured one; one distinctive word is worth 1, two are worth 2',
    async (b) => {
      const r = await b.open()
      const declared = r.scoreScale ?? 1
      const { size, single, pair } = await calibrate(r)
      const measured = median(single) / relevanceUnit(size)
      ok(
        near(declared, measured),
        `scoreScale ${declared} declared, ${measured.toFixed(3)} measured by calibrateScoreScale: declare the measured figure`,
      )
      const unit = relevanceUnit(size, declared)
      for (const score of single)
        ok(near(score / unit, 1), `one distinctive word: relevance ${(score / unit).toFixed(2)}, expected 1`)
      for (const score of pair)
        ok(near(score / unit, 2), `two distinctive words: relevance ${(score / unit).toFixed(2)}, expected 2`)
    },
  ],
]

export const RETRIEVER_CASE_NAMES = RETRIEVER_CASES.map(([name]) => name)
