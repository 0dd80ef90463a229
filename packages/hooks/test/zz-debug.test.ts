import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openProject } from '@foundry/project'
import { serveHooks } from '../src/index.js'
import { events, larkspurProject, payload, runHookBin } from './helpers.js'
const dir = await larkspurProject()
const project = await openProject({ root: dir })
const server = await serveHooks(project)
writeFileSync(join(dir, '.foundry', 'config.json'), JSON.stringify({ promptContext: { minScore: 50 } }))
const t = performance.now()
const served = await runHookBin('prompt-context', payload.prompt(dir, 'the stripe webhook handler created duplicate payments again'))
console.log('ms', performance.now() - t, 'code', served.code, 'stdout', served.stdout, 'stderr', served.stderr.slice(0, 500))
console.log(JSON.stringify(events(dir).slice(-3)))
const direct = await project.kernel.memory.search({ query: 'the stripe webhook handler created duplicate payments again' })
console.log('direct hits', direct.hits.length)
await server?.close()
await project.close()
