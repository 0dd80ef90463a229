import { defineConfig } from 'tsup'
import { KERNEL_ENTRIES } from '../../tsup.preset'

export default defineConfig({
  entry: KERNEL_ENTRIES,
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node20',
  platform: 'neutral',
  // typebox 1.x ships ~700 ES modules: importing it unbundled costs 0.3–1 s, bundled ~50 ms. Every
  // consumer (hooks run on every prompt) pays that, so the kernel carries the parts it uses.
  noExternal: ['typebox'],
})
