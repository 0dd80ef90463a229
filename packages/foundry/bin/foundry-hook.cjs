#!/usr/bin/env node
// `foundry-hook` installed with `foundry` (npm i -g @foundry/cli): the bundled bin of @foundry/hooks (CommonJS: it starts on every prompt).
require('@foundry/hooks/bin')
