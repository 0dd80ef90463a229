/** The test registration function of any runner: uvu's `test`, node:test's `test`, vitest's `it`. */
export type TestFn = (name: string, fn: () => Promise<void> | void) => void

export interface SuiteOptions {
  /** Known gaps, with the reason; the names are the suite's case names. Each skip is printed with its reason. */
  skip?: Array<{ reason: string; tests: string[] }>
  /** Prefix for case names, e.g. `fsStorage: `. */
  prefix?: string
  /** Where skipped cases are reported, one line each. Default `console.log`. */
  log?: (line: string) => void
}

/** One line for a case that does not run, and why. */
export function skipLine(options: SuiteOptions, name: string, reason: string): string {
  return `skipped: ${options.prefix ?? ''}${name} (${reason})`
}

/** The reason each case of `options.skip` is skipped; throws on a name the suite does not have. */
export function skipsOf(names: readonly string[], options: SuiteOptions): Map<string, string> {
  const skipped = new Map<string, string>()
  for (const s of options.skip ?? []) for (const name of s.tests) skipped.set(name, s.reason)
  const known = new Set(names)
  for (const name of skipped.keys()) if (!known.has(name)) throw new Error(`skip names an unknown case "${name}"`)
  return skipped
}

/** Register each case on a new subject from `make`, closed afterwards; a skipped case is printed with its reason instead. */
export function register<T extends { close?(): Promise<void> }>(
  test: TestFn,
  cases: Array<[string, (subject: T) => Promise<void>]>,
  make: () => T | Promise<T>,
  options: SuiteOptions,
): void {
  const log = options.log ?? ((line: string) => console.log(line))
  const skipped = skipsOf(
    cases.map(([name]) => name),
    options,
  )
  for (const [name, fn] of cases) {
    const reason = skipped.get(name)
    if (reason !== undefined) {
      log(skipLine(options, name, reason))
      continue
    }
    test(`${options.prefix ?? ''}${name}`, async () => {
      const subject = await make()
      try {
        await fn(subject)
      } finally {
        await subject.close?.()
      }
    })
  }
}
