import { cpSync, existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { defineConfig } from 'tsup'
import ts from 'typescript'
import { bundledBin, cachedScript, commonJsBin, library } from '../../tsup.preset.js'

/** The server never validates with Ajv, so the SDK's Ajv provider is stubbed (in both builds of the program). */
const sdkWithoutAjv = {
  name: 'sdk-without-ajv',
  setup(build: { onResolve(options: { filter: RegExp }, resolve: (args: { importer: string }) => { path: string } | undefined): void }) {
    build.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, (args) => (args.importer.includes('@modelcontextprotocol') ? { path: resolve('src/no-ajv.ts') } : undefined))
  },
}

/**
 * The SDK's `types.js` builds every zod schema of the protocol (~150) at its top level, and a server
 * loading it evaluated them all, though it checks its messages with a few. Each call in a top-level
 * initializer is marked `@__PURE__`, so the bundle keeps only the schemas its code reaches (the stdio
 * transport imports its one schema by name for that: `@foundry/server`'s message-schema.ts).
 */
const sdkSchemasPure = {
  name: 'sdk-schemas-pure',
  setup(build: { onLoad(options: { filter: RegExp }, load: (args: { path: string }) => Promise<{ contents: string; loader: 'js' }>): void }) {
    build.onLoad({ filter: /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]types\.js$/ }, async (args) => ({
      contents: pureTopLevel(await readFile(args.path, 'utf8')),
      loader: 'js',
    }))
  },
}

/** `source` with `/* @__PURE__ *\/` before each call of its top-level `const` initializers (function bodies left as they are). */
function pureTopLevel(source: string): string {
  const file = ts.createSourceFile('types.js', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS)
  const starts = new Set<number>()
  const visit = (node: ts.Node): void => {
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return
    if (ts.isCallExpression(node)) starts.add(node.getStart(file))
    ts.forEachChild(node, visit)
  }
  for (const statement of file.statements)
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations) if (declaration.initializer) visit(declaration.initializer)
  let out = source
  for (const at of [...starts].sort((a, b) => b - a)) out = `${out.slice(0, at)}/* @__PURE__ */ ${out.slice(at)}`
  return out
}

/**
 * Marbles' engine (the console's run actions) is loaded from the installed `@foundry/marbles`, not
 * bundled: it loads workspace modules through its own jiti, which resolves their imports itself.
 */
const MARBLES_OUTSIDE = { noExternal: [/^(?!(better-sqlite3|@foundry\/marbles\/engine)$)/] }

export default defineConfig([
  // `@foundry/cli` (top-level files only: dist/bin belongs to the bin build): the CLI as a library, `runCli`.
  library({ index: 'src/index.ts' }, { clean: ['*'] }),
  // The `foundry` bin: a small CommonJS entry (`foundry.js`, its former path, runs it). `foundry mcp --http`
  // (and `--help`) imports the program as ES module chunks...
  bundledBin({ foundry: 'src/bin-path.ts', 'foundry-program': 'src/cli/program.ts' }, { esbuildPlugins: [sdkWithoutAjv], ...MARBLES_OUTSIDE }),
  commonJsBin({ foundry: 'src/bin.ts' }),
  // ...every other command runs it as one script compiled through V8's code cache; `list` and `search`
  // with only global options run a smaller one (no commander, no other command), and a plain `foundry mcp`
  // its own script, the stdio server alone (the kernel, the tools and the adapters are evaluated after
  // the client's `initialize` is answered).
  cachedScript(
    { 'foundry-cli': 'src/cli/program.ts', 'foundry-hot': 'src/cli/hot/program.ts', 'foundry-mcp': 'src/mcp-stdio.ts' },
    {
      esbuildPlugins: [sdkWithoutAjv, sdkSchemasPure],
      ...MARBLES_OUTSIDE,
      // The web console's built page beside the bin (`foundry ui`, `/ui/` of `foundry mcp --http`): the
      // program looks for it in `./ui/` next to itself.
      onSuccess: async () => {
        const ui = resolve('../console/dist/ui')
        if (!existsSync(`${ui}/index.html`)) throw new Error('packages/console is not built: its dist/ui is what foundry ui serves')
        cpSync(ui, resolve('dist/bin/ui'), { recursive: true })
      },
    },
  ),
])
