// @foundry/adapter-fs: Foundry's Storage on the `.foundry` folder.
export { fsStorage, type FsStorageOptions } from './fs-storage.js'
export { fsDescriptor } from './descriptor.js'
