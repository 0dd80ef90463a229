import type { Command } from 'commander'
import { blackboardCommand } from './blackboard.js'
import { configCommand } from './config.js'
import { doctorCommand } from './doctor.js'
import { editCommand } from './edit.js'
import { forgetCommand } from './forget.js'
import { historyCommand } from './history.js'
import { indexCommand } from './index-command.js'
import { ingestCommand } from './ingest.js'
import { initCommand } from './init.js'
import { listCommand } from './list.js'
import { mcpCommand } from './mcp.js'
import { reviewCommand } from './review.js'
import { runbookCommand } from './runbook.js'
import { runbooksCommand } from './runbooks.js'
import { searchCommand } from './search.js'
import { showCommand } from './show.js'
import { tokenCommand } from './token.js'
import { tokensCommand } from './tokens.js'
import { uiCommand } from './ui.js'
import { exportCommand, importCommand } from './transfer.js'
import { validateCommand } from './validate.js'
import { validateAssetsCommand } from './validate-assets.js'
import { writeCommand } from './write.js'

/** Every `foundry` command, in the order `--help` lists them. A new command is a file and a line here. */
export const COMMANDS: Array<() => Command> = [
  initCommand,
  writeCommand,
  searchCommand,
  showCommand,
  listCommand,
  historyCommand,
  editCommand,
  forgetCommand,
  reviewCommand,
  indexCommand,
  tokensCommand,
  runbooksCommand,
  runbookCommand,
  validateCommand,
  validateAssetsCommand,
  doctorCommand,
  configCommand,
  blackboardCommand,
  exportCommand,
  importCommand,
  ingestCommand,
  mcpCommand,
  uiCommand,
  tokenCommand,
]
