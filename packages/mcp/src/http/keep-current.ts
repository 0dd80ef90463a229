import type { Project } from '@foundry/project'

/**
 * Keep a team server's retriever current: warm it once, then bring it up to date in the background on
 * every change of the facts the storage reports (another server's write, heard through LISTEN/NOTIFY
 * on PostgreSQL), so the next search finds it current instead of paying for the catch-up. A storage
 * without `onChange` changes nothing: each search catches up itself, as in any process. Returns the
 * function that stops following.
 */
export function keepCurrent(project: Pick<Project, 'kernel' | 'storage'>, log: (line: string) => void): () => void {
  let running = false
  let again = false
  let stopped = false
  let reported = false
  const sync = async () => {
    if (running) return void (again = true)
    running = true
    try {
      do {
        again = false
        await project.kernel.memory.warm()
      } while (again && !stopped)
    } catch (error) {
      // Not fatal: a search brings the retriever up to date itself. Said once, not on every change.
      if (!stopped && !reported)
        log(`keeping the search index current failed (searches catch up themselves): ${(error as Error).message}`)
      reported = true
    } finally {
      running = false
    }
  }
  void sync()
  const off = project.storage.onChange?.(
    (change) => void ('collection' in change && change.collection === 'facts' && !stopped && sync()),
  )
  return () => {
    stopped = true
    off?.()
  }
}
