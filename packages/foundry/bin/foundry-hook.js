#!/usr/bin/env node
// `foundry-hook` installed with `foundry` (npm i -g @foundry/cli): the bundled bin of @foundry/hooks.
import '@foundry/hooks/bin'
