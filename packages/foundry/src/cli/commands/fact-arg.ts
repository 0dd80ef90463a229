import { InvalidArgumentError } from 'commander'

/** Commander parser for a fact id argument: `fact-0012`, `fact-12` or `12`, as `fact-0012`. */
export function factIdArg(value: string): string {
  const m = /^(?:fact-)?(\d+)$/i.exec(value.trim())
  if (!m) throw new InvalidArgumentError('Not a fact id: give one such as fact-0012.')
  return `fact-${String(Number(m[1])).padStart(4, '0')}`
}
