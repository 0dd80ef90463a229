// @foundry/project/find: finding a project without opening it, with Node built-ins only (the hook
// bin's fast path imports it without loading the kernel). Every public name of the subpath is listed here.
export { findProject, findProjectRoot, explicitRoot, findInstalledBin } from './find.js'
