import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { assertKey, assertLogName, isCollectionName, isValidKey } from '../src/keys.js'

const RESERVED = ['CON', 'con', 'PRN', 'aux', 'NUL', 'nul.txt', 'COM1', 'com9', 'LPT1', 'lpt3.log', 'Con.json']

test('Windows reserved device names are refused as keys, in any case and with any extension, in every segment', () => {
  for (const name of RESERVED) {
    assert.not.ok(isValidKey('runbooks', name.toLowerCase()), `runbook ${name}`)
    assert.not.ok(isValidKey('contracts', name), `contract ${name}`)
    assert.not.ok(isValidKey('artifacts', `w1/${name}`), `artifact agent ${name}`)
    assert.not.ok(isValidKey('artifacts', `${name}/agent`), `artifact wave ${name}`)
    assert.not.ok(isValidKey('meta', `retriever/${name}/head`), `meta ${name}`)
    assert.not.ok(isValidKey('marbles.runs', `${name}`), `open collection key ${name}`)
    assert.throws(() => assertLogName(`marbles/${name}`), /Invalid log name/)
  }
  assert.throws(() => assertKey('runbooks', 'nul'), /device names on Windows; choose another name/)
  assert.not.ok(isCollectionName('con.runs'))
  assert.not.ok(isCollectionName('marbles.nul'))
})

test('names that only start like a device name still pass', () => {
  for (const name of [
    'console',
    'conf',
    'nullable',
    'com',
    'com10',
    'lpt',
    'auxiliary',
    'prn-report',
    'con-1',
    'a.con',
  ]) {
    assert.ok(isValidKey('runbooks', name), name)
    assert.ok(isValidKey('meta', `x/${name}`), name)
    assert.ok(isValidKey('artifacts', `w1/${name}`), name)
  }
  assert.ok(isCollectionName('marbles.runs'))
})

test.run()
