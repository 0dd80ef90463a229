// Every row of foundry mcp's table carries its role (fail closed: the server refuses a row without one).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { checkTools } from '@foundry/kernel/tools'
import { TOOLS } from '../src/tools.js'

test('every foundry tool has a valid role: reads need read, memory and blackboard writes need write', () => {
  const roles = checkTools(TOOLS)
  assert.is(roles.size, TOOLS.length)
  const by = (role: string) =>
    [...roles]
      .filter(([, r]) => r === role)
      .map(([name]) => name)
      .sort()
  assert.equal(by('write'), ['blackboard_write', 'memory_forget', 'memory_index', 'memory_review', 'memory_write'])
  assert.equal(by('read'), [
    'blackboard_read',
    'contract_validate',
    'memory_search',
    'runbook_get',
    'runbook_list',
    'token_report',
  ])
})

test.run()
