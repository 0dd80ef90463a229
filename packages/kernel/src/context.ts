import type { Config } from './schema/config.js'
import type { Retriever } from './retrieval.js'
import type { Storage, StorageProblem } from './storage.js'

/** What every service receives from `createKernel`. */
export interface KernelContext {
  storage: Storage
  retriever: Retriever
  config: Config
  now: () => Date
  /** The project root, for relative paths in messages and for `contract_validate`'s `path`. */
  root: string | undefined
  /** Reads a file for `contract_validate { path }`; absent in hosts without a filesystem. */
  readFile: ((path: string) => Promise<string>) | undefined
  onProblem: (problem: StorageProblem) => void
}
