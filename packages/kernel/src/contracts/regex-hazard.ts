/**
 * A check for the regular expressions a contract brings (`pattern`, `patternProperties`): a pattern
 * that can take exponential time on some input is refused when the contract loads, before any input
 * meets it (`^([a-zA-Z]+\s?)+$` against 36 letters and a `!` runs for minutes, blocking the event
 * loop). JavaScript's engine backtracks, and the kernel runs no threads, so the pattern is checked
 * instead of the match timed.
 *
 * The rule is star height, as safe-regex has it, with one exception that keeps the common safe
 * forms: a repeated group holding a repeated part is a hazard, unless each repetition starts with
 * a required character that nothing else in the group can match (`(-[a-z0-9]+)*`, `(\.\d+)+`),
 * so the input says where every repetition starts. Overlapping alternatives (`(a|a)*`) and
 * polynomial forms (`a*a*b`) pass.
 */
export function regexHazard(pattern: string): string | undefined {
  let root: Group
  try {
    root = parseGroup(pattern, 0, false)[0]
  } catch {
    return undefined // not parsable here: the schema compiler reports a broken pattern
  }
  return hazardIn(root)
}

interface Atom {
  src: string
  min: number
  max: number
  /** A group's content; absent for a single character, class or escape. */
  group?: Group
  /** An anchor, word boundary or lookaround: matches no character. */
  zeroWidth?: boolean
}

interface Group {
  alternatives: Atom[][]
}

function hazardIn(group: Group): string | undefined {
  for (const alternative of group.alternatives)
    for (const atom of alternative) {
      if (!atom.group) continue
      const inner = hazardIn(atom.group)
      if (inner) return inner
      if (atom.max > 1 && repeats(atom.group) && !separated(atom.group))
        return `it has a nested quantifier (${atom.src}: a repeated group that itself holds a repeated part), which can take exponential time on some inputs`
    }
  return undefined
}

const repeats = (group: Group): boolean => group.alternatives.some((alt) => alt.some((a) => a.max > 1 || (a.group !== undefined && repeats(a.group))))

/** Each repetition starts with one required character that no other part of the group can match. */
function separated(group: Group): boolean {
  if (group.alternatives.length !== 1) return false
  const [first, ...rest] = group.alternatives[0]!
  if (!first || first.group || first.zeroWidth || first.min !== 1 || first.max !== 1) return false
  return rest.every((atom) => atom.zeroWidth || (!atom.group && disjoint(first.src, atom.src)))
}

/** No UTF-16 code unit matches both single-character patterns. */
function disjoint(a: string, b: string): boolean {
  const x = single(a)
  const y = single(b)
  if (!x || !y) return false
  for (let code = 0; code <= 0xffff; code++) {
    const c = String.fromCharCode(code)
    if (x.test(c) && y.test(c)) return false
  }
  return true
}

function single(src: string): RegExp | undefined {
  for (const flags of ['', 'u'])
    try {
      return new RegExp(`^(?:${src})$`, flags)
    } catch {
      // try with the next flags
    }
  return undefined
}

function parseGroup(p: string, start: number, closed: boolean): [Group, number] {
  const group: Group = { alternatives: [[]] }
  let i = start
  while (i < p.length) {
    const c = p[i]!
    if (c === ')') {
      if (!closed) throw new Error('unbalanced )')
      return [group, i + 1]
    }
    if (c === '|') {
      group.alternatives.push([])
      i++
      continue
    }
    const from = i
    let inner: Group | undefined
    let zeroWidth = false
    if (c === '(') {
      let j = i + 1
      if (p[j] === '?') {
        if (p[j + 1] === ':') j += 2
        else if (p[j + 1] === '=' || p[j + 1] === '!') (j += 2), (zeroWidth = true)
        else if (p[j + 1] === '<' && (p[j + 2] === '=' || p[j + 2] === '!')) (j += 3), (zeroWidth = true)
        else if (p[j + 1] === '<') j = p.indexOf('>', j) + 1
        else throw new Error('unknown group')
      }
      ;[inner, i] = parseGroup(p, j, true)
    } else if (c === '[') i = endOfClass(p, i)
    else if (c === '\\') i = endOfEscape(p, i)
    else i++
    if (c === '^' || c === '$' || (c === '\\' && (p[from + 1] === 'b' || p[from + 1] === 'B'))) zeroWidth = true
    const [min, max, end] = quantifier(p, i)
    i = end
    const atom: Atom = { src: p.slice(from, i), min, max }
    if (inner) atom.group = inner
    if (zeroWidth) atom.zeroWidth = true
    if (inner && zeroWidth) atom.zeroWidth = true
    group.alternatives[group.alternatives.length - 1]!.push(atom)
  }
  if (closed) throw new Error('unclosed (')
  return [group, i]
}

function endOfClass(p: string, i: number): number {
  let j = i + 1
  if (p[j] === '^') j++
  if (p[j] === ']') j++
  while (j < p.length) {
    if (p[j] === '\\') j += 2
    else if (p[j] === ']') return j + 1
    else j++
  }
  throw new Error('unclosed [')
}

function endOfEscape(p: string, i: number): number {
  const e = p[i + 1]
  if ((e === 'p' || e === 'P' || e === 'u') && p[i + 2] === '{') return p.indexOf('}', i) + 1
  if (e === 'u') return i + 6
  if (e === 'x') return i + 4
  if (e === 'c') return i + 3
  if (e !== undefined && /[1-9]/.test(e)) {
    let j = i + 2
    while (j < p.length && /\d/.test(p[j]!)) j++
    return j
  }
  return i + 2
}

/** The quantifier at `i` as [min, max, end]; [1, 1, i] when there is none. A lazy `?` after it is consumed. */
function quantifier(p: string, i: number): [number, number, number] {
  let out: [number, number, number]
  const c = p[i]
  if (c === '*') out = [0, Infinity, i + 1]
  else if (c === '+') out = [1, Infinity, i + 1]
  else if (c === '?') out = [0, 1, i + 1]
  else {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i))
    if (!m) return [1, 1, i]
    const min = Number(m[1])
    out = [min, m[2] === undefined ? min : m[3] ? Number(m[3]) : Infinity, i + m[0].length]
  }
  if (p[out[2]] === '?') out[2]++
  return out
}
