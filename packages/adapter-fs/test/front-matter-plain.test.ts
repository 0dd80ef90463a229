import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { parseDocument } from 'yaml'
import {
  factToMarkdown,
  libraryYaml,
  loadYaml,
  plainFrontMatter,
  plainYaml,
  splitFrontMatter,
} from '../src/front-matter.js'

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

/** Text built from the pieces YAML treats specially, a few at a time, from a seeded generator (the same every run). */
function trickyTexts(count: number): string[] {
  // Pieces between ¦ (a space, a comma and a bar are pieces too).
  const pieces = (
    'a¦Z¦word¦é¦日本¦😀¦0¦42¦1e3¦0x1F¦0o7¦.5¦+1¦-¦?¦:¦: ¦ #¦#¦ ¦,¦[¦]¦{¦}¦&¦*¦!¦|¦>¦\'¦"¦%¦@¦`¦\\¦/¦.¦~¦true¦' +
    'null¦NULL¦False¦.inf¦.NaN¦---¦...¦\t¦\n¦\u0085¦\u2028¦\ufeff¦\u0007¦\ud800¦2026-01-02¦T03:04:05.000Z¦module:billing¦a@b'
  ).split('¦')
  let seed = 7
  const next = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return (seed >>> 8) % n
  }
  const texts: string[] = []
  for (let i = 0; i < count; i++) {
    let text = ''
    for (let k = next(5); k >= 0; k--) text += pieces[next(pieces.length)]
    texts.push(text)
  }
  return texts
}

test('front matter written without the YAML library is byte for byte what the library writes', () => {
  let plain = 0
  const texts = trickyTexts(6000)
  for (const [i, text] of texts.entries()) {
    const front = { id: 'fact-0001', title: text, scope: texts[(i * 7) % texts.length]!, tags: [text, 'ops'] }
    const written = plainYaml(front)
    if (written === undefined) continue
    plain++
    assert.is(written, libraryYaml(front), JSON.stringify(front))
    assert.equal(viaReader(written), front, JSON.stringify(front))
  }
  // Most text needs no library: the check above is not vacuous.
  assert.ok(plain > 2000, `${plain} of ${texts.length} written without the library`)
})

test('a fact as memory_write stores it is written without the YAML library; a line break or a control character is left to it', () => {
  const front = {
    id: 'fact-0042',
    title: 'Mechanisms of Renal Cell Apoptosis: A "Systematic" Review #2',
    type: 'decision',
    scope: 'module:billing',
    tags: ['ops', 'db/pg', 'true', '[x]'],
    confidence: 'high',
    source: 'external:https://example.com/x',
    author: "o'brien",
    created: '2026-01-02T03:04:05.000Z',
    expires: '2027-01-05',
    supersedes: 'fact-0009',
    status: 'active',
  }
  assert.is(plainYaml(front), libraryYaml(front))
  assert.is(
    plainYaml(front),
    'id: fact-0042\ntitle: \'Mechanisms of Renal Cell Apoptosis: A "Systematic" Review #2\'\ntype: decision\nscope: module:billing\ntags: [ops, db/pg, "true", "[x]"]\nconfidence: high\nsource: external:https://example.com/x\nauthor: o\'brien\ncreated: 2026-01-02T03:04:05.000Z\nexpires: 2027-01-05\nsupersedes: fact-0009\nstatus: active\n',
  )
  for (const title of ['two\nlines', 'tab\there', 'bell\u0007', '--- marker', '% directive'])
    assert.is(plainYaml({ title }), undefined, JSON.stringify(title))
  assert.is(plainYaml({ title: 'x', count: 3 }), undefined, 'a number is left to the library')
  assert.is(plainYaml({}), undefined)
})

test.run()
