'use strict';
const { verify } = require('@node-rs/argon2');
/** The same native argon2id the service verifies client secrets with. */
module.exports = { argon2Verify: (hash, secret) => verify(hash, secret).catch(() => false) };
