import { cpSync, existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { defineConfig } from 'tsup'
import { bundledBin, library } from '../../tsup.preset.js'

export default defineConfig([
  // `@foundry/cli` (top-level files only: dist/bin belongs to the bin build): the CLI as a library, `runCli`.
  library({ index: 'src/index.ts' }, { clean: ['*'] }),
  // The `foundry` bin: the kernel, the tools, @foundry/project and the adapters are chunks loaded after the client's
  // `initialize` is answered. The server never validates with Ajv, so the SDK's Ajv provider is stubbed.
  bundledBin(
    { foundry: 'src/bin.ts' },
    {
      esbuildPlugins: [
        {
          name: 'sdk-without-ajv',
          setup(build) {
            build.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, (args) =>
              args.importer.includes('@modelcontextprotocol') ? { path: resolve('src/no-ajv.ts') } : undefined,
            )
          },
        },
      ],
      // The web console's built page beside the bin (`foundry ui`, `/ui/` of `foundry mcp --http`): the
      // bundle looks for it in `./ui/` next to itself.
      onSuccess: async () => {
        const ui = resolve('../console/dist/ui')
        if (!existsSync(`${ui}/index.html`)) throw new Error('packages/console is not built: its dist/ui is what foundry ui serves')
        cpSync(ui, resolve('dist/bin/ui'), { recursive: true })
      },
    },
  ),
])
