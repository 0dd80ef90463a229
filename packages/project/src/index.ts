// @foundry/project: the one Node composition root. Every consumer (the foundry CLI, the MCP server,
// the hooks, Marbles) finds and opens a project through it; nothing else imports an adapter.

// Finding a project, like git: never creates one.
export { locateProject } from './locate.js'
export { findProject, findProjectRoot, isProject, DATA_FOLDER, CONFIG_FILE, type FindOptions } from './find.js'

// Opening one: config.json read, adapters opened through the registry, the kernel composed.
export { openProject, openStorage, openTarget, type OpenProjectOptions, type OpenedTarget, type Project, type ProjectContext } from './open.js'
export { readContainedFile, READ_FILE_MAX_BYTES } from './contained-file.js'
export { doctorProject, type DoctorOptions, type DoctorReport } from './doctor.js'
export { initProject, type InitProjectOptions, type InitResult } from './init.js'
export { readProjectConfig, parseProjectConfig, type ProjectConfig, type AdapterChoice, type AdapterOverride } from './config.js'

// Every environment variable Foundry reads, for the configuration reference.
export { ENVIRONMENT, type EnvironmentVariable } from './environment.js'

// The registry of adapter descriptors: one line per built-in adapter.
export { BUILTIN_STORAGES, BUILTIN_RETRIEVERS, STORAGE_TARGETS, builtinRegistry, withAdapterModules, installedKinds, resolveAdapter, type Registry, type Resolved, type StorageTarget, type TargetMatch } from './registry.js'
