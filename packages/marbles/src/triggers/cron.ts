/**
 * Five-field cron (minute hour day-of-month month day-of-week), local time: `*`, numbers, ranges
 * `a-b`, steps `*\/n` and `a-b/n`, lists `a,b`; day-of-week 0–7 (0 and 7: Sunday). As in Vixie cron,
 * when both day fields are restricted, a day matching either one fires.
 */
export interface Cron {
  readonly source: string
  readonly minute: ReadonlySet<number>
  readonly hour: ReadonlySet<number>
  readonly day: ReadonlySet<number>
  readonly month: ReadonlySet<number>
  readonly weekday: ReadonlySet<number>
  readonly dayRestricted: boolean
  readonly weekdayRestricted: boolean
}

const FIELDS = [
  ['minute', 0, 59],
  ['hour', 0, 23],
  ['day of month', 1, 31],
  ['month', 1, 12],
  ['day of week', 0, 7],
] as const

export function parseCron(source: string): Cron {
  const parts = source.trim().split(/\s+/)
  if (parts.length !== 5)
    throw new TypeError(`cron "${source}" must have five fields (minute hour day-of-month month day-of-week)`)
  const sets = parts.map((part, i) => field(part, FIELDS[i]!, source))
  const weekday = new Set([...sets[4]!].map((d) => d % 7))
  return {
    source,
    minute: sets[0]!,
    hour: sets[1]!,
    day: sets[2]!,
    month: sets[3]!,
    weekday,
    dayRestricted: parts[2] !== '*',
    weekdayRestricted: parts[4] !== '*',
  }
}

function field(text: string, [name, min, max]: (typeof FIELDS)[number], source: string): Set<number> {
  const out = new Set<number>()
  for (const item of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item)
    if (!m) throw new TypeError(`cron "${source}": ${name} "${item}" is not *, a number, a range or a step`)
    const from = m[1] === '*' ? min : Number(m[2])
    const to = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? max : from
    const by = m[4] !== undefined ? Number(m[4]) : 1
    if (from < min || to > max || from > to || by < 1)
      throw new TypeError(`cron "${source}": ${name} "${item}" is outside ${min}-${max}`)
    for (let v = from; v <= to; v += by) out.add(v)
  }
  return out
}

/** The first minute strictly after `after` that the expression matches (searched up to five years ahead). */
export function nextCron(cron: Cron, after: Date): Date {
  const t = new Date(after.getTime())
  t.setSeconds(0, 0)
  t.setMinutes(t.getMinutes() + 1)
  const limit = after.getTime() + 5 * 366 * 86_400_000
  while (t.getTime() <= limit) {
    if (!cron.month.has(t.getMonth() + 1)) {
      t.setMonth(t.getMonth() + 1, 1)
      t.setHours(0, 0)
      continue
    }
    if (!dayMatches(cron, t)) {
      t.setDate(t.getDate() + 1)
      t.setHours(0, 0)
      continue
    }
    if (!cron.hour.has(t.getHours())) {
      t.setHours(t.getHours() + 1, 0)
      continue
    }
    if (!cron.minute.has(t.getMinutes())) {
      t.setMinutes(t.getMinutes() + 1)
      continue
    }
    return t
  }
  throw new TypeError(`cron "${cron.source}" never fires`)
}

function dayMatches(cron: Cron, t: Date): boolean {
  const day = cron.day.has(t.getDate())
  const weekday = cron.weekday.has(t.getDay())
  if (cron.dayRestricted && cron.weekdayRestricted) return day || weekday
  return day && weekday
}
