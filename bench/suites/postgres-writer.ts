// A writer process of the postgres suites' throughput figure (not a suite):
// `postgres-writer.ts <postgres|sqlite|fs> <url|dir> <worker> <run>` opens a kernel on the store,
// makes one untimed write, prints `ready`, and on a line from stdin makes memory writes back to back,
// printing `w` after each, until stdin ends (`throughput` counts the `w`s in its window); then `done`.
import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { postgresStorage } from '@foundry/adapter-postgres'
import { sqliteStorage } from '@foundry/adapter-sqlite'
import { createKernel, type Storage } from '@foundry/kernel'

const [kind, target, worker, run] = process.argv.slice(2) as [string, string, string, string]
/** A letters-only word per number: the same-subject rule ignores digits, so titles must differ in words. */
const word = (n: number) => [...String(n)].map((d) => 'abcdefghij'[Number(d)]).join('') + 'x'

const storage: Storage =
  kind === 'postgres'
    ? await postgresStorage({ url: target })
    : kind === 'sqlite'
      ? sqliteStorage({ path: join(target, 'foundry.db'), timeout: 120_000 })
      : fsStorage({ root: target })
// The default retriever is never searched here, so writes do not update it: the figure is the write path alone.
const kernel = createKernel({ storage })
const write = (i: number) =>
  kernel.memory.write({
    title: `Throughput run ${word(Number(run))} writer ${word(Number(worker))} note ${word(i)}`,
    body: `Written by writer ${worker} of run ${run}, number ${i}.`,
    type: 'convention',
    scope: `module:r${run}w${worker}`,
  })
await write(1_000_000)
console.log('ready')
let stopped = false
process.stdin.on('end', () => (stopped = true))
await new Promise((resolve) => process.stdin.once('data', resolve))
for (let i = 0; !stopped; i++) {
  const result = await write(i)
  if (result.action !== 'created') throw new Error(`unexpected write result: ${result.text}`)
  console.log('w')
}
await kernel.close()
console.log('done')
