// Every row of marbles mcp's table carries its role (fail closed: the server refuses a row without one).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { checkTools } from '@foundry/kernel/tools'
import { TOOLS } from '../src/mcp/tools.js'

test('every marbles tool has a valid role: list_config and get_run need read, dispatches, cancel and signal need run', () => {
  const roles = checkTools(TOOLS)
  assert.equal(Object.fromEntries(roles), {
    list_config: 'read',
    dispatch_workflow: 'run',
    dispatch_agent: 'run',
    get_run: 'read',
    cancel_run: 'run',
    signal_run: 'run',
  })
})

test.run()
