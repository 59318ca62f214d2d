// Layout time of the report's graph section in headless Chromium, for
// synthetic models of N nodes shaped like a transformer (blocks of
// LayerNorm, MatMul, Add with residual edges; every other block delegated,
// some pairs fused). The page is a real report (BASE.html, any report made
// with an ETRecord) whose "graph" and "ops" data are replaced.
// Prints one line per size: "<nodes> <boxes> <median layout ms> <median render ms>".
//
// usage: node graph_layout_bench.js BASE.html REPEATS N...
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { launch, openReport } = require('./chromium');

const TYPES = ['layer_norm', 'linear', 'linear', 'softmax', 'matmul', 'add', 'layer_norm', 'linear', 'gelu', 'linear', 'add'];

function syntheticGraph(n) {
  const nodes = [];
  const edges = [];
  const ops = [];
  let residual = -1;
  for (let i = 0; i < n; i++) {
    const type = TYPES[i % TYPES.length];
    const block = Math.floor(i / TYPES.length);
    // A linear and the gelu after it share one row (fused).
    const fusedWithPrevious = type === 'gelu';
    if (!fusedWithPrevious) {
      ops.push({ label: `op${i}`, op_names: [`op${i}`], op_types: [type], modules: [`blocks.${block}`],
        debug_handles: [i], backend: block % 2 ? 'XnnpackBackend' : '', identifiers: [], instructions: [block],
        fused: false, decomposed: false, mapped: true, occurrences: 1, n: 1, mean: 1000 + (i * 7919) % 5000,
        p50: 0, p90: 0, min: 0, max: 0, percent: 0, in_modules: [] });
    } else {
      ops[ops.length - 1].fused = true;
      ops[ops.length - 1].op_names.push(`op${i}`);
    }
    nodes.push({ name: `/blocks/blocks.${block}/op${i}`, type, handle: i, row: ops.length - 1,
      partition: block % 2 ? Math.floor(block / 2) : null, error: null, exceeds: false, sqnr_db: null });
    if (i > 0) edges.push([i - 1, i]);
    if (type === 'add' && residual >= 0) edges.push([residual, i]);
    if (type === 'add' || i === 0) residual = i;
  }
  const total = ops.reduce((s, r) => s + r.mean, 0);
  for (const r of ops) r.percent = (100 * r.mean) / total;
  const blocks = Math.ceil(n / TYPES.length);
  const partitions = [];
  for (let b = 1; b < blocks; b += 2) partitions.push({ backend: 'XnnpackBackend', instruction: b });
  return { graph: { method: 'forward', partitions, nodes, edges }, ops };
}

(async () => {
  const [base, repeats, ...sizes] = process.argv.slice(2);
  const html = fs.readFileSync(base, 'utf8');
  const start = html.indexOf('<script type="application/json" id="glassbox-data">');
  const end = html.indexOf('</script>', start);
  const open = html.indexOf('>', start) + 1;
  const data = JSON.parse(html.slice(open, end));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graph-bench-'));
  const browser = await launch();
  try {
    for (const n of sizes.map(Number)) {
      const { graph, ops } = syntheticGraph(n);
      const page = { ...data, ops, graph, modules: [], timeline: null, numeric: null, baseline: null };
      const json = JSON.stringify(page).replace(/</g, '\\u003c');
      const file = path.join(dir, `graph_${n}.html`);
      fs.writeFileSync(file, html.slice(0, open) + json + html.slice(end));
      const layout = [];
      const render = [];
      let boxes = 0;
      for (let i = 0; i < Number(repeats); i++) {
        const { page: tab, problems } = await openReport(browser, file);
        if (problems.length) throw new Error(problems.join('; '));
        const g = await tab.evaluate(() => window.glassboxReport.graph);
        layout.push(g.layoutMs);
        boxes = g.boxes;
        render.push(await tab.evaluate(() => window.glassboxReport.renderedMs));
        await tab.close();
      }
      const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(0);
      console.log(`${n} ${boxes} ${median(layout)} ${median(render)}`);
    }
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
})().catch((err) => {
  console.error(`graph_layout_bench: ${err.stack || err}`);
  process.exit(1);
});
