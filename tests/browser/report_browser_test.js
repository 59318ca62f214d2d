// `glassbox report` pages in a real browser (ctest label `browser`).
// Makes the demo's report and a report of the demo with a deliberate
// numeric fault (cos perturbed, so tan's decomposition fails) plus a
// baseline, and the demo's report compared with the same model on the
// portable kernels, opens them in headless Chromium and checks what a
// person would see. Screenshots go to OUT_DIR.
//
// usage: node report_browser_test.js GLASSBOX_BINARY OUT_DIR
// Exit 77 (ctest: skipped) only when Chromium is not installed.
'use strict';

const assert = require('assert/strict');
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { chromiumPresent, launch, openReport, CHROMIUM } = require('./chromium');

const [glassbox, outDir] = process.argv.slice(2);
if (!glassbox || !outDir) {
  console.error('usage: node report_browser_test.js GLASSBOX_BINARY OUT_DIR');
  process.exit(2);
}
if (!chromiumPresent()) {
  console.log(`SKIPPED: ${CHROMIUM} is not installed (scripts/setup.sh installs Debian's chromium)`);
  process.exit(77);
}

fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });
const out = (name) => path.join(outDir, name);
const run = (...args) => execFileSync(glassbox, args, { stdio: ['ignore', 'pipe', 'inherit'] });

function makeReports() {
  run('demo', '--out', out('demo'), '--iterations', '5');
  run('lower', '--model', 'demo', '--backend', 'demo', '-o', out('fault.gbx'), '--etrecord',
    out('fault.etrecord'), '--reference-seed', '7', '--perturb', '3');
  run('run', out('fault.gbx'), '--etdump', out('fault.etdp'), '--iterations', '3',
    '--debug-level', 'intermediates', '--debug-data', out('fault.bin'), '--seed', '7');
  run('run', out('fault.gbx'), '--etdump', out('before.etdp'), '--iterations', '3');
  run('report', '--etdump', out('fault.etdp'), '--etrecord', out('fault.etrecord'),
    '--debug-data', out('fault.bin'), '--baseline', out('before.etdp'), '-o', out('fault.html'));
  // The same model on the portable kernels, compared per layer with the demo's run.
  run('lower', '--model', 'demo', '--backend', 'portable', '-o', out('portable.gbx'), '--etrecord',
    out('portable.etrecord'));
  run('run', out('portable.gbx'), '--etdump', out('portable.etdp'), '--iterations', '3');
  run('report', '--etdump', out('demo/demo.etdp'), '--etrecord', out('demo/demo.etrecord'),
    '--compare', out('portable.etdp'), '--compare-etrecord', out('portable.etrecord'), '-o', out('compare.html'));
}

async function checkCommon(page, problems) {
  assert.deepEqual(problems, [], 'the page loads with no console errors and no requests');
  const sections = await page.evaluate(() => window.glassboxReport.sections);
  for (const [name, outcome] of Object.entries(sections)) assert.notEqual(outcome, 'failed', `${name} draws`);
}

async function checkDemo(browser) {
  const { page, problems } = await openReport(browser, out('demo/demo.html'));
  await checkCommon(page, problems);
  assert.match(await page.title(), /ConvReLUTanModel/);

  // The ops table: two fused conv+relu rows, tan decomposed into three ids.
  const rows = await page.$$eval('#ops-table tbody tr', (trs) => trs.map((tr) => ({
    label: tr.dataset.label, ids: Number(tr.dataset.identifiers), fused: tr.dataset.fused === 'true',
    decomposed: tr.dataset.decomposed === 'true', badges: [...tr.querySelectorAll('.badge')].map((b) => b.textContent),
  })));
  assert.equal(rows.length, 3, 'three ops rows');
  const fused = rows.filter((r) => r.fused);
  assert.deepEqual(fused.map((r) => r.label).sort(), ['conv2d+relu', 'conv2d_1+relu_1']);
  for (const r of fused) assert.ok(r.badges.includes('fused'), `${r.label} is marked fused`);
  const tan = rows.find((r) => r.label === 'tan');
  assert.ok(tan, 'a tan row');
  assert.equal(tan.ids, 3, 'tan has three identifiers');
  assert.ok(tan.decomposed && tan.badges.includes('decomposed'), 'tan is marked decomposed');

  // Sorting by op name, then filtering by text.
  await page.click('#ops-table th[data-key="label"]');
  const sorted = await page.$$eval('#ops-table tbody tr', (trs) => trs.map((tr) => tr.dataset.label));
  assert.deepEqual(sorted, ['conv2d+relu', 'conv2d_1+relu_1', 'tan']);
  await page.fill('#ops-filter', 'tan');
  assert.equal(await page.$$eval('#ops-table tbody tr', (trs) => trs.length), 1);
  await page.fill('#ops-filter', '');

  // The module tree: the model, conv_layer and its four modules; a node
  // filters the table.
  assert.equal(await page.$$eval('.module-node', (n) => n.length), 6);
  await page.click('.module-node[data-path="conv_layer.conv1"]');
  const filtered = await page.$$eval('#ops-table tbody tr', (trs) => trs.map((tr) => tr.dataset.label));
  assert.deepEqual(filtered, ['conv2d+relu']);
  await page.click('#module-filter');
  assert.equal(await page.$$eval('#ops-table tbody tr', (trs) => trs.length), 3);

  // Time by op type: conv2d, relu (the fused groups split evenly between
  // them, so equal bars) and tan, most time first; hovering a bar says what
  // it holds.
  const bars = await page.$$eval('#types-chart rect.op-type',
    (rs) => rs.map((r) => ({ type: r.dataset.type, width: Number(r.getAttribute('width')) })));
  assert.deepEqual(bars.map((b) => b.type).sort(), ['conv2d', 'relu', 'tan']);
  for (let i = 1; i < bars.length; ++i) assert.ok(bars[i].width <= bars[i - 1].width + 1e-6, 'most time first');
  const width = (type) => bars.find((b) => b.type === type).width;
  assert.ok(Math.abs(width('conv2d') - width('relu')) < 1e-6, 'conv2d and relu share the fused time');
  await page.hover('#types-chart rect.op-type[data-type="tan"]');
  assert.match(await page.textContent('#tooltip'), /^tan\n1 ops, on DemoBackend\nmean /);

  // The timeline of one execution: one DELEGATE_CALL holding the five
  // delegate events (conv+relu twice, sin, cos, div), inside Method::execute.
  const roles = await page.$$eval('#timeline-chart rect.tl-event', (rs) => rs.map((r) => r.dataset.role));
  const count = (role) => roles.filter((r) => r === role).length;
  assert.equal(count('delegate_call'), 1, 'one DELEGATE_CALL block');
  assert.equal(count('delegate'), 5, 'five delegate blocks');
  assert.equal(count('framework'), 1, 'Method::execute');
  // Hovering a delegate block names its identifier, ops and the delegate's metadata.
  await page.hover('#timeline-chart rect.tl-event[data-role="delegate"]');
  const tip = await page.textContent('#tooltip');
  assert.match(tip, /identifier \d+/);
  assert.match(tip, /ops conv2d/);
  assert.match(tip, /metadata \S+/);
  // Zooming keeps the timeline drawn.
  await page.hover('#timeline-chart svg');
  await page.mouse.wheel(0, -300);
  assert.ok(await page.$$eval('#timeline-chart rect.tl-event', (rs) => rs.length) >= 1);
  await page.dblclick('#timeline-chart svg');

  // The graph: the delegate call's ground holds two fused boxes (conv2d and
  // relu each) and tan's box with its three delegate steps; a click on tan
  // filters the table to its row, the chip clears it.
  const boxes = await page.$$eval('#graph-chart g.graph-node', (gs) => gs.map((g) => ({
    members: Number(g.dataset.members), decomposed: g.dataset.decomposed === 'true',
    partition: g.dataset.partition, text: g.textContent })));
  assert.equal(boxes.length, 3, 'three boxes for five source ops');
  assert.deepEqual(boxes.map((b) => b.members).sort(), [1, 2, 2]);
  assert.ok(boxes.every((b) => b.partition === '0'), 'all in the one delegate call');
  const tanBox = boxes.find((b) => b.decomposed);
  assert.ok(tanBox && /tan \(tan\)/.test(tanBox.text) && /3 delegate steps/.test(tanBox.text), 'tan drawn with its steps');
  assert.equal(await page.$$eval('#graph-chart rect.graph-partition', (r) => r.map((x) => x.dataset.backend)).then((b) => b.join()), 'DemoBackend');
  assert.deepEqual(await page.$$eval('#graph-shade option', (o) => o.map((x) => x.value)), ['time']);
  await page.click('#graph-chart g.graph-node[data-decomposed="true"]');
  assert.deepEqual(await page.$$eval('#ops-table tbody tr', (trs) => trs.map((tr) => tr.dataset.label)), ['tan']);
  await page.click('#row-filter');
  assert.equal(await page.$$eval('#ops-table tbody tr', (trs) => trs.length), 3);
  // The wheel zooms the graph (its transform's scale changes).
  const scaleOf = () => page.$eval('#graph-chart svg > g', (g) => g.getAttribute('transform'));
  const before = await scaleOf();
  await page.hover('#graph-chart svg');
  await page.mouse.wheel(0, -200);
  assert.notEqual(await scaleOf(), before, 'the wheel zooms the graph');

  assert.equal(await page.isHidden('#numeric'), true, 'no numeric chart without --debug-data');
  await page.mouse.move(0, 0);  // no tooltip in the picture
  await page.screenshot({ path: out('demo-report.png'), fullPage: true });
  await page.close();
}

async function checkFault(browser) {
  const { page, problems } = await openReport(browser, out('fault.html'));
  await checkCommon(page, problems);
  const data = await page.evaluate(() => JSON.parse(document.getElementById('glassbox-data').textContent));
  const ff = data.numeric.first_failure;
  assert.equal(typeof ff, 'number', 'the fault is found');
  assert.equal(data.numeric.rows[ff].label, 'tan');
  // The chart marks exactly that row, and draws the threshold.
  const marker = await page.$('#numeric-first-failure');
  assert.ok(marker, 'the first failure is marked');
  assert.equal(await marker.getAttribute('data-order'), String(data.numeric.rows[ff].order));
  assert.ok(await page.$('#numeric-threshold'), 'the threshold is drawn');
  assert.equal(await page.$$eval('#numeric-chart circle.point', (c) => c.length), data.numeric.rows.length);
  assert.match(await page.textContent('#numeric-note'), /first failure: tan/);
  // Rows before the failure pass.
  const points = await page.$$eval('#numeric-chart circle.point', (c) => c.map((p) => p.getAttribute('class')));
  for (let i = 0; i < ff; i++) assert.ok(!points[i].includes('exceeds'), `row ${i} before the failure passes`);

  // The graph can be shaded by the error too, and then tan is the worst.
  assert.deepEqual(await page.$$eval('#graph-shade option', (o) => o.map((x) => x.value)), ['time', 'error']);
  assert.equal(await page.$eval('#graph-shade', (s) => s.value), 'error', 'a numeric report shades by error first');
  const fills = await page.$$eval('#graph-chart g.graph-node', (gs) => gs.map((g) => ({
    decomposed: g.dataset.decomposed === 'true', fill: g.querySelector('rect').getAttribute('fill') })));
  assert.equal(fills.find((f) => f.decomposed).fill, 'rgb(255,110,20)', 'tan, the faulted op, is the deepest orange');

  assert.equal(await page.isVisible('#baseline'), true);
  assert.equal(await page.$$eval('#baseline-chart rect.delta', (r) => r.length), 3);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: out('fault-report.png'), fullPage: true });
  await page.close();
}

async function checkCompare(browser) {
  const { page, problems } = await openReport(browser, out('compare.html'));
  await checkCommon(page, problems);
  assert.equal(await page.isVisible('#compare'), true, 'the comparison is shown');
  const bars = await page.$$eval('#compare-chart rect.delta', (rs) => rs.map((r) => r.dataset.label));
  assert.deepEqual(bars.slice().sort(), ['conv2d+relu', 'conv2d_1+relu_1', 'tan'], 'one bar per layer both runs have');
  assert.match(await page.textContent('#compare-note'), /joined by name; 3 ops in both, 0 only in A, 0 only in B/);
  await page.hover('#compare-chart rect.delta[data-label="tan"]');
  assert.match(await page.textContent('#tooltip'), /A .* on DemoBackend, B .* on portable/);
  assert.equal(await page.isHidden('#baseline'), true, 'no baseline chart without --baseline');
  await page.close();
}

(async () => {
  makeReports();
  const browser = await launch();
  try {
    await checkDemo(browser);
    await checkFault(browser);
    await checkCompare(browser);
  } finally {
    await browser.close();
  }
  console.log(`report_browser_test: passed; screenshots in ${outDir}`);
})().catch((err) => {
  console.error(`report_browser_test: FAILED: ${err.stack || err}`);
  process.exit(1);
});
