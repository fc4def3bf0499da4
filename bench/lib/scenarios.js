'use strict';
/**
 * The benchmark scenarios. Each one builds its requests for a target ('service' or
 * 'baseline'); both get the same paths and bodies, only the auth headers differ.
 */

async function prepareScenarioData(sql, tenantId) {
  return { tenantId };
}

async function buildScenarios({ tenant }) {
  const tokenBody = { grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret };
  return [
    {
      id: 'token',
      name: 'POST /auth/token',
      request: () => ({ method: 'POST', path: '/api/v1/auth/token', body: tokenBody, noAuth: true }),
      targets: {},
    },
  ];
}

module.exports = { prepareScenarioData, buildScenarios };
