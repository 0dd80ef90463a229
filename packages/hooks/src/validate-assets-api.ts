// @foundry/hooks/validate-assets: the asset checks alone (what `foundry validate-assets` needs, and nothing else).
export { validateAssets, formatAssetReport } from './validate-assets.js'
