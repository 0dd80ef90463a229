/**
 * Let timers and I/O run: long work on reads that may all resolve at once (the folder storage reads
 * small files synchronously, memory and SQLite answer at once) calls it between its steps, so a
 * server answers `initialize`, a ping or a cancellation meanwhile. A timer, not a microtask: a chain
 * of resolved promises never lets a timer fire. About a millisecond each.
 */
export const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))
