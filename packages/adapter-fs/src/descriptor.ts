import { defineStorage } from '@foundry/kernel/adapter'
import { inspectFolder, repairFolder } from './doctor.js'
import { loadYaml } from './front-matter.js'
import { fsStorage } from './fs-storage.js'

/** The options of `"storage": { "kind": "fs", … }` in `.foundry/config.json`. */
export interface FsDescriptorOptions {
  /** The data folder, relative to the project root or absolute. Default `.foundry`. */
  folder?: string
  /** fsync every record before a write resolves. Default true. */
  durable?: boolean
  /** The folder of derived state (journals, caches, the write lock), relative to the project root or absolute. Default `<folder>/cache`. */
  cache?: string
}

/** JSON Schema (a plain object, so loading this package never loads TypeBox). */
const FsDescriptorOptionsSchema = {
  type: 'object',
  properties: {
    folder: {
      type: 'string',
      minLength: 1,
      description: 'The data folder, relative to the project root or absolute. Default .foundry',
    },
    durable: { type: 'boolean', description: 'fsync every record before a write resolves. Default true' },
    cache: {
      type: 'string',
      minLength: 1,
      description:
        'The folder of derived state (journals, caches, the write lock), relative to the project root or absolute. Default <folder>/cache',
    },
  },
  additionalProperties: false,
} as const

/** `"storage": { "kind": "fs" }`: the `.foundry/` folder layout (the default). */
export const fsDescriptor = defineStorage({
  kind: 'fs',
  description: 'the .foundry/ folder layout: markdown facts a team reviews in git (the default)',
  options: FsDescriptorOptionsSchema,
  open: (options: FsDescriptorOptions, site) => fsStorage({ root: site.root, ...options }),
  doctor: async (options: FsDescriptorOptions, site, { fix }) => {
    await loadYaml() // a fact file edited by hand is read by the YAML library
    return (fix ? repairFolder : inspectFolder)(site.root, options)
  },
})
