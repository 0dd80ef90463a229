// A second process writing a run's journal, as a Marbles worker would: one entry per stdin line, a
// JSON object as that record (its seq and time added), any other text as an info log line.
import { createInterface } from 'node:readline'
import { openProject } from '@foundry/project'

const [root, id] = process.argv.slice(2)
const project = await openProject({ root: root! })
const log = `marbles/${id}`
let seq = await project.storage.logEnd(log).then(async () => (await project.storage.readLog(log, 0)).entries.length)
for await (const line of createInterface({ input: process.stdin })) {
  const record = line.startsWith('{') ? JSON.parse(line) : { type: 'log', level: 'info', message: line }
  await project.storage.appendLog(log, [JSON.stringify({ seq, at: Date.now(), ...record })])
  seq++
  process.stdout.write(`appended ${seq}\n`)
}
await project.close()
