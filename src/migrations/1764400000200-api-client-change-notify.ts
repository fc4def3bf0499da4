import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revocation within a second on every instance (contract §2, ADR 35): any change to an API
 * client's row (revoked, scopes or rate limit changed, deleted) notifies `api_clients` with the
 * client's id at commit, whoever made it (the service, the CLI in another process, an operator's
 * SQL), and every instance drops that client from its cache.
 */
export class ApiClientChangeNotify1764400000200 implements MigrationInterface {
  name = 'ApiClientChangeNotify1764400000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION api_clients_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('api_clients', OLD.id);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER api_clients_changed AFTER UPDATE OR DELETE ON api_clients
        FOR EACH ROW EXECUTE FUNCTION api_clients_notify()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER api_clients_changed ON api_clients`);
    await q.query(`DROP FUNCTION api_clients_notify()`);
  }
}
