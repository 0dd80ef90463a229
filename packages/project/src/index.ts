// @foundry/project: the one Node composition root. Every consumer (the foundry CLI, the MCP server,
// the hooks, Marbles) finds and opens a project through it; nothing else imports an adapter.
// Finding a project without opening it (the hooks' fast path) is `@foundry/project/find`.
export { locateProject } from './locate.js'
// Opening one: config.json read, adapters opened through the registry, the kernel composed.
export { openProject, openStorage, openTarget, type Project, type ProjectContext } from './open.js'
export { doctorProject } from './doctor.js'
export { initProject } from './init.js'
export { readProjectConfig } from './config.js'
// Where Marbles sends run spans, when anywhere (config.json's `tracing`, the standard OTEL_* variables).
export { tracesUrl } from './tracing.js'
// Every environment variable Foundry reads, for the configuration reference.
export { ENVIRONMENT } from './environment.js'
// The registry of adapter descriptors: one line per built-in adapter.
export { BUILTIN_STORAGES, BUILTIN_RETRIEVERS } from './registry.js'
