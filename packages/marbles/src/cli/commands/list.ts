import { Command } from 'commander'
import { kindOf } from '../../define/brand.js'
import { action } from '../context.js'

/** `marbles list`: what the workspace declares. */
export function listCommand(): Command {
  return new Command('list')
    .description("List the workspace's workflows, steps, agents, schedules and monitors")
    .action(
      action(async (ctx) => {
        const { source, definitions } = await ctx.workspace()
        const runnables = [...definitions.runnables.values()].map((d) => ({
          kind: kindOf(d)!,
          name: d.name,
          description: d.description ?? null,
          input: d.input ?? null,
        }))
        const agents = [...definitions.agents.values()].map((a) => ({
          id: a.id,
          model: a.model ?? null,
          description: a.description ?? null,
        }))
        const schedules = [...definitions.schedules.values()].map((s) => ({
          name: s.name,
          workflow: s.workflow,
          when: s.when,
        }))
        const monitors = [...definitions.monitors.values()].map((m) => ({
          name: m.name,
          workflow: m.workflow,
          everyMs: m.everyMs,
        }))
        if (ctx.options.json)
          return void ctx.out(JSON.stringify({ source: source.path, runnables, agents, schedules, monitors }))
        ctx.out(`source: ${source.path}`)
        for (const r of runnables) ctx.out(`${r.kind} ${r.name}${r.description ? ` · ${r.description}` : ''}`)
        for (const a of agents) ctx.out(`agent ${a.id}${a.model ? ` · ${a.model.provider}/${a.model.model}` : ''}`)
        for (const s of schedules) ctx.out(`schedule ${s.name} → ${s.workflow} · ${s.when}`)
        for (const m of monitors) ctx.out(`monitor ${m.name} → ${m.workflow} · every ${m.everyMs} ms`)
      }),
    )
}
