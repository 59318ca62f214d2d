#!/usr/bin/env node
// Per-operator p50/p90 over a `glassbox export --rows ops` file with DuckDB
// (embedded, npm @duckdb/node-api, installed in tests/fleet by
// scripts/setup.sh), optionally split by a tag, and the rows copied to
// Parquet for engines beyond one machine (docs/fleet.md).
//
//   glassbox export --etdump 'runs/*/*/*.etdp' --etrecord m.etrecord --rows ops \
//       --tag-from-path 'runs/{device}/{app_version}/*.etdp' -o ops.ndjson
//   node scripts/fleet_duckdb_example.mjs ops.ndjson [--group-by device] [--parquet ops.parquet]
//
// quantile_cont interpolates linearly between the two nearest ranks, the
// rule `glassbox inspect` uses, so the numbers match its p50/p90.
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/fleet/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const sqlString = (text) => `'${String(text).replaceAll("'", "''")}'`;
const identifier = (text) => `"${String(text).replaceAll('"', '""')}"`;

/// Rows {group, op, samples, p50_ns, p90_ns}, ordered by group then op.
export async function opPercentiles(connection, ndjsonPath, groupBy = '') {
  const group = groupBy ? `tags.${identifier(groupBy)}` : `''`;
  const reader = await connection.runAndReadAll(`
    SELECT ${group} AS "group", op, count(*) AS samples,
           quantile_cont(duration_ns, 0.5) AS p50_ns,
           quantile_cont(duration_ns, 0.9) AS p90_ns
    FROM read_json_auto(${sqlString(ndjsonPath)}, format = 'newline_delimited')
    GROUP BY ALL ORDER BY "group", op`);
  return reader.getRowObjectsJS();
}

/// The export copied to Parquet with DuckDB's COPY ... TO.
export async function copyToParquet(connection, ndjsonPath, parquetPath) {
  await connection.run(`
    COPY (SELECT * FROM read_json_auto(${sqlString(ndjsonPath)}, format = 'newline_delimited'))
    TO ${sqlString(parquetPath)} (FORMAT parquet)`);
}

export async function connect() {
  const instance = await DuckDBInstance.create(':memory:');
  return instance.connect();
}

async function main(args) {
  const input = args[0];
  if (!input) {
    console.error('usage: fleet_duckdb_example.mjs OPS.ndjson [--group-by TAG] [--parquet OUT]');
    process.exit(2);
  }
  const option = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : '';
  };
  const connection = await connect();
  for (const row of await opPercentiles(connection, input, option('--group-by'))) {
    console.log([row.group, row.op, row.samples, row.p50_ns, row.p90_ns].join('\t'));
  }
  if (option('--parquet')) await copyToParquet(connection, input, option('--parquet'));
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
