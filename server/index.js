// The dotcode-server package entry. The server is compiled with the rest of the repository into
// the root dist/ (tsc -b); this file is the package's door to it, resolved from its real place
// (a "main" of "../dist/..." would be read relative to the node_modules link instead).
'use strict';
module.exports = require('../dist/server/src/index.js');
