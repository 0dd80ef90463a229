// @foundry/adapter-fs: Foundry's Storage on the `.foundry` folder.
import { join } from 'node:path'
import { createLayout } from './layout.js'

export { fsStorage, type FsStorageOptions } from './fs-storage.js'
export { fsDescriptor, type FsDescriptorOptions } from './descriptor.js'
export { inspectFolder, repairFolder, QUARANTINE, type DoctorFolderOptions } from './doctor.js'

/**
 * A file in the data folder's cache (`<root>/.foundry/cache/<name>`: gitignored, derived, safe to
 * delete while no process runs). Where derived state of other adapters lives beside the folder
 * layout, such as the FTS5 index when facts are kept as files.
 */
export function cacheFile(root: string, name: string, folder?: string): string {
  return join(createLayout(root, folder).cache, name)
}
