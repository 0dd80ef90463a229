// @foundry/adapter-fs: Foundry's Storage on the `.foundry` folder.
export { fsStorage } from './fs-storage.js'
export { fsDescriptor } from './descriptor.js'
