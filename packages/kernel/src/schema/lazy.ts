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

/**
 * An object built on its first touch and kept, standing in for it: for the schemas the kernel exports
 * as values (`FactSchema`), so a process that never reads one never builds it, nor evaluates TypeBox.
 * Any operation on it (a property read, `in`, `Object.keys`, JSON) builds the object once and acts on
 * it; the stand-in keeps its own identity (a `WeakMap` keyed by it finds it again).
 */
export function lazyObject<T extends object>(build: () => T): T {
  let built: T | undefined
  const real = (): T => {
    built ??= build()
    return built
  }
  // Every trap acts on the built object; the empty target only carries the stand-in's identity.
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(real(), key)
      // Reported configurable: a proxy may not report a property the target lacks as fixed.
      return found && { ...found, configurable: true }
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    set: (_, key, value) => Reflect.set(real(), key, value),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
  })
}
