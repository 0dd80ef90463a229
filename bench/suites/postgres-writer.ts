// A writer process of the postgres suite's throughput figure (not a suite):
// `postgres-writer.ts <postgres|sqlite|fs> <url|dir> <worker> <count> <run>` opens a kernel on the
// store, makes one untimed write (it loads every fact into the kernel's cache), prints `ready`, and
// on a line from stdin makes `count` memory writes, then prints `done`.
import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { postgresStorage } from '@foundry/adapter-postgres'
import { sqliteStorage } from '@foundry/adapter-sqlite'
import { createKernel, type Storage } from '@foundry/kernel'

const [kind, target, worker, count, run] = process.argv.slice(2) as [string, string, string, string, string]
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
await new Promise((resolve) => process.stdin.once('data', resolve))
for (let i = 0; i < Number(count); i++) {
  const result = await write(i)
  if (result.action !== 'created') throw new Error(`unexpected write result: ${result.text}`)
}
await kernel.close()
console.log('done')
