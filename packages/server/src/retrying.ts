/** Call `open` once and share its promise; a failure is not kept, so the next call tries again. */
export function retrying<T>(open: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () =>
    (pending ??= open().catch((error: unknown) => {
      pending = undefined
      throw error
    }))
}
