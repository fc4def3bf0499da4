'use strict';
/** Route registrars for the resource endpoints (filled in as the modules land). */
module.exports = [];
