import { PREPARED_PER_CONNECTION, UnitOfWork } from '../../../src/shared/infrastructure/database/unit-of-work';
import { TestApp } from '../../support/test-app';

/**
 * Item 8 of issue 11: the named prepared statements (ADR 15) are bounded per connection with
 * least-recently-used eviction (DEALLOCATE), on a real PostgreSQL: the server never holds more
 * than PREPARED_PER_CONNECTION of them per connection, and a text that was let go runs again.
 */
describe('prepared statements per connection (issue 11 item 8)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.start();
  });
  afterAll(() => app.close());

  it('keeps at most PREPARED_PER_CONNECTION prepared, and re-prepares one that was evicted', async () => {
    const uow = app.app.get(UnitOfWork);
    const texts = Array.from({ length: PREPARED_PER_CONNECTION + 60 }, (_, i) => `SELECT $1::int + ${i} AS n`);
    const held = await uow.run(async () => {
      for (const [i, text] of texts.entries()) expect(await uow.query(text, [1])).toEqual([{ n: 1 + i }]);
      const [row] = await uow.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'uow\\_%'`);
      // The first text was evicted long ago: used again, it is prepared again (no "does not exist").
      expect(await uow.query(texts[0], [5])).toEqual([{ n: 5 }]);
      return row.n;
    });
    expect(held).toBeGreaterThan(PREPARED_PER_CONNECTION / 2);
    expect(held).toBeLessThanOrEqual(PREPARED_PER_CONNECTION);
  });

  it('bounds the connections of plain reads outside transactions the same way', async () => {
    const uow = app.app.get(UnitOfWork);
    for (let i = 0; i < PREPARED_PER_CONNECTION + 60; i++) expect(await uow.query(`SELECT $1::int * ${i + 1} AS n`, [2])).toEqual([{ n: 2 * (i + 1) }]);
    // Each pooled connection: what it holds, seen from inside one (every connection of the pool, by a transaction each).
    const counts = await Promise.all(
      Array.from({ length: 8 }, () =>
        uow.run(() => uow.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements`).then(([r]) => r.n)),
      ),
    );
    for (const n of counts) expect(n).toBeLessThanOrEqual(PREPARED_PER_CONNECTION);
  });
});
