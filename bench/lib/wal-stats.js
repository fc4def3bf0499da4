'use strict';
/**
 * The server-level write cost of a measured span (docs/adr/0048): a snapshot of the cluster's
 * cumulative WAL, checkpoint and I/O statistics before and after, and the difference per unit
 * (entry, payment). pg_stat_wal: WAL records, full-page images, bytes, and how often a backend
 * found the WAL buffers full; pg_stat_checkpointer: checkpoints timed and requested (max_wal_size
 * reached) and the buffers they wrote; pg_stat_io: blocks written (by the checkpointer, the
 * background writer, backends) and WAL writes and fsyncs. Cluster-wide: nothing else may run on the
 * cluster meanwhile. Backends report their counts at most every second and when they exit: take the
 * second snapshot after the service has stopped (or its backends have been idle for 10 s).
 */
const { Client } = require('pg');

const SNAPSHOT = `
  SELECT pg_current_wal_lsn()::text AS lsn, current_setting('data_checksums') AS data_checksums,
         (SELECT row_to_json(w) FROM (SELECT wal_records, wal_fpi, wal_bytes::text, wal_buffers_full FROM pg_stat_wal) w) AS wal,
         (SELECT row_to_json(c) FROM (SELECT num_timed, num_requested, num_done, buffers_written FROM pg_stat_checkpointer) c) AS checkpointer,
         (SELECT coalesce(json_object_agg(backend_type, json_build_object('writes', writes, 'extends', extends, 'fsyncs', fsyncs)), '{}')
            FROM (SELECT backend_type, sum(coalesce(writes, 0))::bigint AS writes, sum(coalesce(extends, 0))::bigint AS extends, sum(coalesce(fsyncs, 0))::bigint AS fsyncs
                    FROM pg_stat_io WHERE object = 'relation' GROUP BY backend_type) io) AS relation_io,
         (SELECT json_build_object('writes', sum(coalesce(writes, 0))::bigint, 'fsyncs', sum(coalesce(fsyncs, 0))::bigint)
            FROM pg_stat_io WHERE object = 'wal') AS wal_io`;

/** The cumulative counters now (a client, or a URL to connect to for the one query). */
async function walSnapshot(clientOrUrl) {
  if (typeof clientOrUrl === 'string') {
    const client = new Client({ connectionString: clientOrUrl });
    await client.connect();
    try {
      return await walSnapshot(client);
    } finally {
      await client.end();
    }
  }
  // The statistics this session has read stay fixed for its transaction (stats_fetch_consistency).
  await clientOrUrl.query('SELECT pg_stat_clear_snapshot()');
  const { rows: [row] } = await clientOrUrl.query(SNAPSHOT);
  return row;
}

const r2 = (x) => Math.round(x * 100) / 100;

/**
 * What happened between two snapshots, per unit (`n` entries or payments): WAL records, full-page
 * images, bytes and the share of them in full-page images is not known exactly (pg_stat_wal does
 * not split bytes), so the FPI count is given beside the bytes; checkpoints and blocks written as
 * totals over the span (they are rare events), relation blocks written per unit by process type.
 */
function walDelta(before, after, n) {
  const d = (path) => Number(path(after)) - Number(path(before));
  const io = {};
  for (const type of Object.keys(after.relation_io)) {
    const writes = Number(after.relation_io[type].writes) - Number(before.relation_io[type]?.writes ?? 0);
    if (writes > 0) io[type] = r2(writes / n);
  }
  return {
    data_checksums: after.data_checksums,
    wal_records: r2(d((s) => s.wal.wal_records) / n),
    wal_fpi: r2(d((s) => s.wal.wal_fpi) / n),
    wal_bytes: Math.round(d((s) => s.wal.wal_bytes) / n),
    wal_buffers_full: r2(d((s) => s.wal.wal_buffers_full) / n),
    wal_writes: r2(d((s) => s.wal_io.writes) / n),
    wal_fsyncs: r2(d((s) => s.wal_io.fsyncs) / n),
    relation_blocks_written_by: io,
    span: {
      wal_mb: Math.round(d((s) => s.wal.wal_bytes) / 1048576),
      checkpoints_timed: d((s) => s.checkpointer.num_timed),
      checkpoints_requested: d((s) => s.checkpointer.num_requested),
      checkpoints_done: d((s) => s.checkpointer.num_done),
      checkpoint_buffers_written: d((s) => s.checkpointer.buffers_written),
    },
  };
}

/**
 * The WAL between two snapshots by record type (pg_walinspect, on the database at `url`), the `top`
 * types by bytes, per unit: records, bytes of the records themselves and of their full-page images.
 * The segments must still be there: a checkpoint during the span may have recycled the first ones.
 */
async function walRecordTypes(url, before, after, n, top) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    const { rows } = await client.query(
      `SELECT "resource_manager/record_type" AS type, count, record_size, fpi_size, combined_size
         FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) ORDER BY combined_size DESC LIMIT $3`,
      [before.lsn, after.lsn, top],
    );
    return rows.map((r) => ({ type: r.type, records: r2(Number(r.count) / n), record_bytes: Math.round(Number(r.record_size) / n), fpi_bytes: Math.round(Number(r.fpi_size) / n) }));
  } catch (error) {
    return [{ error: error.message }];
  } finally {
    await client.end();
  }
}

module.exports = { walSnapshot, walDelta, walRecordTypes };
