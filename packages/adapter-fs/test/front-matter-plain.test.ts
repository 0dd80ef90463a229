import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { parseDocument } from 'yaml'
import { factToMarkdown, loadYaml, plainFrontMatter, splitFrontMatter } from '../src/front-matter.js'

/**
 * The front matter Foundry writes is read without the YAML parser; whatever the reader takes, it
 * must give what YAML gives (and fail where YAML fails). Each case is one front matter.
 */
const CASES = [
  'id: fact-0042\ntitle: "Mechanisms of Renal Cell: A \\"Review\\" \\u00e9\\n"\ntype: glossary\nscope: module:pass1\ntags: [t1, ops/db, a@b]\nconfidence: low\nsource: external:https://example.com/x\ncreated: 2026-01-01T00:00:42.000Z\nexpires: 2026-03-01\nstatus: active\n',
  'title: plain words here\n',
  'title: Mechanisms of Renal Cell Apoptosis: A Systematic Review\n',
  'title: Mechanisms of X:Y, [z] {w} & *v !u |t >s %r @q `p\n',
  'title: 5 ways to go\n',
  'title: 1e3 x\n',
  'title: true story\n',
  'title: it\'s "quoted" here\n',
  'title: a  b\n',
  'title: a #b\n',
  'title: ends with:\n',
  'title: trailing \n',
  'title: tab\there\n',
  'title: é accent first\n',
  'title: accent é later\n',
  'title: é\n',
  'title: yes\n',
  'title: On\n',
  'title: NULL\n',
  'title: nan\n',
  "title: it's\n",
  'title: 12ab\n',
  'title: é:\n',
  'title: ٣ digits\n',
  'id: fact-0001\ntitle: Microstructural development of human newborn cerebral white matter assessed in v\ntags: [t1]\ncreated: 2026-01-01T00:00:01.000Z\n',
  'title: True\n',
  'title: null\n',
  'title: 42\n',
  'title: 1e3\n',
  'tags: [1e3, x]\n',
  'tags: [true]\n',
  'tags: []\n',
  'tags: [ a ]\n',
  'tags: [a,b]\n',
  'title: module:\n',
  'title: a # comment\n',
  "title: 'single'\n",
  "title: 'it''s: #1 \"x\"'\n",
  "title: 'a'b'\n",
  "title: ''\n",
  "title: 'unclosed\n",
  'title: "tab\\x41"\n',
  'title: "unclosed\n',
  'title: x\ntitle: y\n',
  'title: x\r\n',
  '# comment\ntitle: x\n',
  'tags:\n  - a\n  - b\n',
  'created: 2026-1-2\n',
  'title: ~\n',
  'title: .inf\n',
  'title: 0x1F\n',
  'title: x:y:z\n',
  'title: a-b_c.d/e@f+g\n',
  'title:\n',
  'title: \n',
  '',
]

// The reader's fallback and the writer use the YAML library, loaded on demand (a storage loads it itself).
test.before(loadYaml)

function viaYaml(yaml: string): unknown {
  const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: false })
  if (doc.errors.length) return 'error'
  return doc.contents === null ? {} : doc.toJS()
}

function viaReader(yaml: string): unknown {
  try {
    return splitFrontMatter(`---\n${yaml}---\n\nbody\n`).data
  } catch {
    return 'error'
  }
}

test('front matter read without the YAML parser gives what the YAML parser gives', () => {
  for (const yaml of CASES) assert.equal(viaReader(yaml), viaYaml(yaml), JSON.stringify(yaml))
})

test('what Foundry writes is read without the YAML parser, and reads back the same', () => {
  const titles = [
    'Mechanisms of Renal Cell Apoptosis: A Systematic Review',
    'Queue is Kafka',
    '5 ways to go',
    'true',
    'Why? "Because" #1',
    'é first',
    'a: b',
    '  padded  ',
    "it's",
    'étude',
  ]
  for (const [i, title] of titles.entries()) {
    const fact = {
      id: `fact-000${i + 1}`,
      title,
      body: 'Body.',
      type: 'decision' as const,
      scope: 'module:billing',
      tags: ['ops', 'db/pg'],
      confidence: 'high' as const,
      source: 'adr-0007',
      created: '2026-01-02T03:04:05.000Z',
      expires: '2027-01-05',
      status: 'active' as const,
      supersedes: 'fact-0009',
    }
    const text = factToMarkdown(fact)
    const yaml = text.slice(4, text.indexOf('\n---\n') + 1)
    const plain = plainFrontMatter(yaml)
    assert.ok(plain, `read without the YAML parser: ${JSON.stringify(yaml)}`)
    assert.equal(plain, viaYaml(yaml))
  }
  // YAML-only escapes are left to the YAML parser, with the same result.
  const odd = factToMarkdown({
    id: 'fact-0001',
    title: 'line\u2028sep\u0085',
    body: 'B.',
    type: 'decision',
    scope: 'project',
    tags: [],
    confidence: 'low',
    source: 'code',
    created: '2026-01-02T03:04:05.000Z',
    status: 'active',
  })
  assert.is(plainFrontMatter(odd.slice(4, odd.indexOf('\n---\n') + 1)), undefined)
  assert.is(splitFrontMatter(odd).data.title, 'line\u2028sep\u0085')
})

test.run()
