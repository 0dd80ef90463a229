import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { parseDocument } from 'yaml'
import { splitFrontMatter } from '../src/front-matter.js'

/**
 * The front matter Foundry writes is read without the YAML parser; whatever the reader takes, it
 * must give what YAML gives (and fail where YAML fails). Each case is one front matter.
 */
const CASES = [
  'id: fact-0042\ntitle: "Mechanisms of Renal Cell: A \\"Review\\" \\u00e9\\n"\ntype: glossary\nscope: module:pass1\ntags: [t1, ops/db, a@b]\nconfidence: low\nsource: external:https://example.com/x\ncreated: 2026-01-01T00:00:42.000Z\nexpires: 2026-03-01\nstatus: active\n',
  'title: plain words here\n', // spaces: the YAML parser
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

test.run()
