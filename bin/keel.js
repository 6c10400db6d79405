#!/usr/bin/env node
// The keel CLI: compiled JavaScript from dist/ when it is current, the TypeScript source otherwise
// (see load-keel.js).
const { loadKeel } = require('./load-keel');

loadKeel('cli/main')
  .main(process.argv.slice(2))
  .then((code) => process.exit(code));
