/**
 * A value built on the first call and kept: for the schemas only some commands use, so a process that
 * never checks such an input never builds it (a TypeBox schema costs a new process its construction).
 */
export function lazySchema<S>(build: () => S): () => S {
  let built: S | undefined
  return () => {
    built ??= build()
    return built
  }
}
