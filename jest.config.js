const { readFileSync } = require('node:fs');

const ESM_ONLY = ['content-disposition'];
const swc = JSON.parse(readFileSync(`${__dirname}/.swcrc`, 'utf8'));

/** One embedded PostgreSQL per run (global setup), a fresh database per test file. */
module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }],
    // A few dependencies ship ES modules only; jest on Node 20 cannot require() them untransformed.
    '^.+\\.m?js$': ['@swc/jest', { swcrc: false, jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  maxWorkers: 2,
  // A deadline, not a duration: tests wait for events, and a busy 2-core machine (CI, two CPU-bound
  // processes beside the suite) runs a PDF or a child-process test several times slower than idle.
  testTimeout: 120_000,
  slowTestThreshold: 15,
};
