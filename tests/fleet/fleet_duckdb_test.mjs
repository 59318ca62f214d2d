// The fleet path end to end: 1,200 small dumps of the demo program (one
// real dump, its timings varied per copy through flatc's JSON form), split
// over four devices; `glassbox export` of them loaded in DuckDB, whose
// per-op p50/p90 (quantile_cont) must equal `glassbox inspect`'s over the
// same dumps, overall and per device; then Parquet through COPY ... TO.
//
//   node fleet_duckdb_test.mjs GLASSBOX FLATC ETDUMP_SCHEMA WORKDIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

if (!fs.existsSync(new URL('./node_modules/@duckdb/node-api', import.meta.url))) {
  console.error('SKIP: @duckdb/node-api is not installed (run scripts/setup.sh)');
  process.exit(77);
}
const { connect, copyToParquet, opPercentiles } = await import('../../scripts/fleet_duckdb_example.mjs');

const [glassbox, flatc, schema, work] = process.argv.slice(2);
const DUMPS = 1200;
const DEVICES = ['dev0', 'dev1', 'dev2', 'dev3'];

function run(program, args) {
  return execFileSync(program, args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(path.join(work, 'json'), { recursive: true });
run(glassbox, ['lower', '--model', 'demo', '-o', 'm.gbx', '--etrecord', 'm.etrecord']);
run(glassbox, ['run', 'm.gbx', '--etdump', 'template.etdp', '--iterations', '2']);
run(flatc, ['--json', '--strict-json', '--raw-binary', '--size-prefixed', '-o', 'json', schema,
            '--', 'template.etdp']);
const template = fs.readFileSync(path.join(work, 'json', 'template.json'), 'utf8');

// A fixed linear congruential generator: the same dumps on every run.
let state = 12345;
const random = () => {
  state = (state * 1103515245 + 12345) % 2147483648;
  return state / 2147483648;
};
const perDevice = new Map(DEVICES.map((d) => [d, []]));
for (let i = 0; i < DUMPS; ++i) {
  const doc = JSON.parse(template);
  for (const block of doc.run_data) {
    for (const event of block.events ?? []) {
      const e = event.profile_event;
      if (!e) continue;
      e.end_time = Number(e.start_time) + 1000 + Math.floor(random() * 1e6);
    }
  }
  const device = DEVICES[i % DEVICES.length];
  const file = path.join(work, 'json', `d${String(i).padStart(5, '0')}.json`);
  fs.writeFileSync(file, JSON.stringify(doc));
  perDevice.get(device).push(file);
}
for (const [device, files] of perDevice) {
  fs.mkdirSync(path.join(work, 'runs', device), { recursive: true });
  // The schema's file_extension names the binaries *.etdp.
  run(flatc, ['--binary', '--size-prefixed', '-o', path.join('runs', device), schema, ...files]);
}

const dumps = ['--etdump', 'runs/*/*.etdp', '--etrecord', 'm.etrecord', '--tag-from-path', 'runs/{device}/*.etdp'];
run(glassbox, ['export', ...dumps, '--rows', 'ops', '-o', 'ops.ndjson', '--jobs', '2']);
const inspectOverall = JSON.parse(run(glassbox, ['inspect', ...dumps, '--view', 'ops', '--format', 'json']));
const inspectByDevice = JSON.parse(
  run(glassbox, ['inspect', ...dumps, '--view', 'ops', '--format', 'json', '--group-by', 'device']));

const connection = await connect();
// inspect prints times to 0.1 ns: compare to that precision.
const close = (a, b) => Math.abs(Number(a) - Number(b)) <= 0.051;
function compare(sqlRows, inspectorDoc, label) {
  const expected = new Map(inspectorDoc.rows.map((r) => [r.label, r]));
  if (sqlRows.length !== expected.size) fail(`${label}: ${sqlRows.length} ops in SQL, ${expected.size} in inspect`);
  for (const row of sqlRows) {
    const want = expected.get(row.op);
    if (!want) fail(`${label}: op ${row.op} missing from inspect`);
    if (Number(row.samples) !== want.count) fail(`${label} ${row.op}: ${row.samples} samples vs ${want.count}`);
    if (!close(row.p50_ns, want.p50_ns)) fail(`${label} ${row.op}: p50 ${row.p50_ns} vs ${want.p50_ns}`);
    if (!close(row.p90_ns, want.p90_ns)) fail(`${label} ${row.op}: p90 ${row.p90_ns} vs ${want.p90_ns}`);
  }
}
const overall = await opPercentiles(connection, path.join(work, 'ops.ndjson'));
compare(overall, inspectOverall, 'overall');
if (overall.some((r) => Number(r.samples) !== DUMPS * 2)) fail('not every dump was exported');

const byDevice = await opPercentiles(connection, path.join(work, 'ops.ndjson'), 'device');
for (const group of inspectByDevice.groups) {
  compare(byDevice.filter((r) => r.group === group.value), group.inspector, group.value);
}
if (inspectByDevice.groups.length !== DEVICES.length) fail('a device is missing from --group-by');

const parquet = path.join(work, 'ops.parquet');
await copyToParquet(connection, path.join(work, 'ops.ndjson'), parquet);
const count = await connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM '${parquet}'`);
const lines = fs.readFileSync(path.join(work, 'ops.ndjson'), 'utf8').trimEnd().split('\n').length;
if (count.getRowObjectsJS()[0].n !== lines) fail(`Parquet holds ${count.getRowObjectsJS()[0].n} rows, the export ${lines}`);
console.log(`ok: ${DUMPS} dumps, ${lines} rows, ${overall.length} ops match inspect`);
