// How a fake CLI was called: each prints its argv to stderr, which the run's journal keeps.
import * as assert from 'uvu/assert'
import { readJournal } from '../src/journal/follow.js'
import { open } from './helpers.js'

/** The argv the fake CLI of `tag` (`fake-codex`, `fake-claude`, `fake-pi`) was started with in run `runId`. */
export async function argvOf(root: string, runId: string, tag: string): Promise<string[]> {
  const project = await open(root)
  try {
    const line = (await readJournal(project.storage, runId)).find(
      (r) => r.type === 'log' && r.message.startsWith(`${tag} argv `),
    ) as { message: string } | undefined
    assert.ok(line, `${tag} announced its argv in run ${runId}`)
    return JSON.parse(line.message.slice(`${tag} argv `.length)).argv as string[]
  } finally {
    await project.close()
  }
}

/** The value after `flag` in `argv`; undefined when the flag is absent. */
export const flagValue = (argv: string[], flag: string) =>
  argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined
export const modelFlag = (argv: string[]) => flagValue(argv, '--model')
