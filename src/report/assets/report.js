// The glassbox report page: draws the report data (the JSON block
// #glassbox-data, made by `glassbox report`) as a summary, the ops table,
// top ops, the module tree, time by op type, the graph (report_graph.js,
// laid out by the embedded dagre), one execution's timeline, and the numeric,
// baseline and compare (another program) charts. SVG is drawn directly; nothing is fetched.
// Every section renders on its own: one that fails says so in its place
// and logs the error, the others still draw.
(function () {
  'use strict';

  const SVG_NS = 'http://www.w3.org/2000/svg';
  const data = JSON.parse(document.getElementById('glassbox-data').textContent);
  const unit = data.summary.time.unit;
  // What the page drew, for people and for the browser tests.
  const state = { sections: {}, moduleFilter: null, rowFilter: null, textFilter: '' };
  window.glassboxReport = state;

  // ---- small helpers -------------------------------------------------------

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svgEl(tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function fmtTime(v) {
    if (unit !== 'ns') return `${Number(v).toFixed(1)} ${unit}`;
    const a = Math.abs(v);
    if (a < 1e3) return `${v.toFixed(1)} ns`;
    if (a < 1e6) return `${(v / 1e3).toFixed(3)} us`;
    if (a < 1e9) return `${(v / 1e6).toFixed(3)} ms`;
    return `${(v / 1e9).toFixed(3)} s`;
  }

  function fmtMetric(v) {
    if (typeof v === 'string') return v;  // "inf", "-inf", "nan"
    if (v === 0) return '0';
    return Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(3) : String(Number(v.toPrecision(4)));
  }

  function ids(list) { return list.map(String).join(','); }

  // Long names lose their middle, not their end: the end tells layers apart
  // ("/features/\u2026/mlp/mlp.3/Add"), the head says where they are. The
  // full name is the label's <title>.
  function short(text, max) {
    if (text.length <= max) return text;
    const head = Math.floor((max - 1) / 3);
    return `${text.slice(0, head)}\u2026${text.slice(text.length - (max - 1 - head))}`;
  }

  // A chart label: shortened, with the full name on hover.
  function labelText(attrs, text, max) {
    const node = svgEl('text', attrs, short(text, max));
    if (text.length > max) node.appendChild(svgEl('title', {}, text));
    return node;
  }

  const tooltip = document.getElementById('tooltip');
  function attachTip(node, text) {
    node.addEventListener('mousemove', (e) => {
      tooltip.textContent = typeof text === 'function' ? text() : text;
      tooltip.hidden = false;
      const x = Math.min(e.clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
      const y = Math.min(e.clientY + 14, window.innerHeight - tooltip.offsetHeight - 8);
      tooltip.style.left = `${x}px`;
      tooltip.style.top = `${y}px`;
    });
    node.addEventListener('mouseleave', () => { tooltip.hidden = true; });
  }

  function chartWidth(container) { return Math.max(480, container.clientWidth || 800); }

  function section(name, draw) {
    try {
      state.sections[name] = draw() || 'drawn';
    } catch (err) {
      state.sections[name] = 'failed';
      const target = document.getElementById(name);
      if (target) target.appendChild(el('p', { class: 'warn' }, `This part could not be drawn: ${err}`));
      console.error(`glassbox report: ${name}:`, err);
    }
  }

  // ---- summary -------------------------------------------------------------

  const FINGERPRINT_TEXT = {
    match: 'same program (ETDump and ETRecord fingerprints match)',
    mismatch_allowed: 'DIFFERENT programs, joined anyway: names may be wrong',
    not_in_dump: 'cannot check: the ETDump records no fingerprint',
    no_etrecord: 'no ETRecord given',
  };
  const TIME_SOURCE_TEXT = {
    dump: 'tick ratio from the dump',
    assumed: 'ASSUMED nanoseconds (the dump has no tick ratio)',
    override: 'given by --time-unit',
  };

  function drawSummary() {
    const s = data.summary;
    document.getElementById('title').textContent = `Glassbox report: ${s.title}`;
    document.title = `Glassbox report: ${s.title}`;
    const list = document.getElementById('summary-list');
    const add = (term, value, warn) => {
      list.appendChild(el('dt', {}, term));
      list.appendChild(el('dd', warn ? { class: 'warn' } : {}, value));
    };
    const ex = s.executions;
    add('Model', s.title);
    add('Backends', s.backends.length ? s.backends.join(', ') : 'none (nothing delegated)');
    add('Executions used', `${ex.used} of ${ex.total}` + (ex.skipped ? ` (${ex.skipped} skipped as warm-up)` : ''));
    add('Time unit', `${unit}, ${TIME_SOURCE_TEXT[s.time.source] || s.time.source}`, s.time.source === 'assumed');
    const cov = s.coverage;
    add('Coverage', s.etrecord
      ? `${cov.logged_identifiers} of ${cov.mapped_identifiers} mapped identifiers logged`
      : 'no ETRecord given: events are not mapped to source ops', s.etrecord && cov.logged_identifiers < cov.mapped_identifiers);
    const c = s.counters;
    add('Dropped events', `${c.dropped_events} dropped (buffer full), ${c.rejected_events} rejected, ` +
      `${c.tensor_data_dropped} tensors without data`, c.dropped_events + c.rejected_events > 0);
    // Without an ETRecord there is nothing to check: Coverage says so once.
    if (s.etrecord) add('Fingerprint check', FINGERPRINT_TEXT[s.fingerprint] || s.fingerprint, s.fingerprint === 'mismatch_allowed');
    add('Ops total (mean per execution)', fmtTime(s.ops_mean_total));
    const diag = document.getElementById('diagnostics-list');
    for (const d of s.diagnostics) diag.appendChild(el('li', { class: d.severity }, `${d.severity}: ${d.message}`));
    if (s.diagnostics.some((d) => d.severity !== 'info')) document.getElementById('diagnostics').open = true;
  }

  // ---- ops table -------------------------------------------------------------

  const OP_COLUMNS = [
    { key: 'label', title: 'op' },
    { key: 'module', title: 'module' },
    { key: 'backend', title: 'backend' },
    { key: 'ids', title: 'identifiers' },
    { key: 'n', title: 'n', num: true },
    { key: 'mean', title: 'mean', num: true, time: true },
    { key: 'p50', title: 'p50', num: true, time: true },
    { key: 'p90', title: 'p90', num: true, time: true },
    { key: 'percent', title: '%', num: true },
  ];

  function opModules(row) { return [...new Set(row.modules.filter((m) => m !== ''))].join(', '); }

  // Delegate counters (cycles, MACs, DMA bytes): a sum and a mean column
  // each, when the dump has any (every row then lists them all, in order).
  const COUNTER_NAMES = ((data.ops.find((r) => r.counters) || {}).counters || []).map((c) => c.name);
  for (const [i, name] of COUNTER_NAMES.entries()) {
    OP_COLUMNS.push({ key: `counter:${i}:sum`, title: name, num: true, counter: i, part: 'sum' });
    OP_COLUMNS.push({ key: `counter:${i}:mean`, title: `${name} mean`, num: true, counter: i, part: 'mean' });
  }

  function opSortValue(row, key) {
    if (key === 'module') return opModules(row);
    if (key === 'ids') return ids(row.identifiers);
    const col = OP_COLUMNS.find((c) => c.key === key);
    if (col && col.counter !== undefined) return row.counters[col.counter][col.part];
    return row[key];
  }

  let sortKey = 'mean';
  let sortDir = -1;

  function drawOpsTable() {
    const table = document.getElementById('ops-table');
    const headRow = el('tr');
    for (const col of OP_COLUMNS) {
      const th = el('th', { 'data-key': col.key, class: col.num ? 'num' : '' }, col.title);
      th.addEventListener('click', () => {
        sortDir = sortKey === col.key ? -sortDir : (col.num ? -1 : 1);
        sortKey = col.key;
        fillOpsTable();
      });
      headRow.appendChild(th);
    }
    table.tHead.appendChild(headRow);
    document.getElementById('ops-filter').addEventListener('input', (e) => {
      state.textFilter = e.target.value.trim().toLowerCase();
      fillOpsTable();
    });
    document.getElementById('module-filter').addEventListener('click', () => setModuleFilter(null));
    document.getElementById('row-filter').addEventListener('click', () => setRowFilter(null));
    fillOpsTable();
  }

  function rowMatches(row) {
    if (state.moduleFilter !== null && !row.in_modules.includes(state.moduleFilter)) return false;
    if (state.rowFilter !== null && data.ops[state.rowFilter] !== row) return false;
    if (!state.textFilter) return true;
    const hay = [row.label, ...row.op_names, ...row.op_types, ...row.modules, row.backend,
      ids(row.identifiers)].join(' ').toLowerCase();
    return hay.includes(state.textFilter);
  }

  function fillOpsTable() {
    const table = document.getElementById('ops-table');
    for (const th of table.tHead.rows[0].cells) {
      th.setAttribute('aria-sort', th.dataset.key === sortKey ? (sortDir > 0 ? 'ascending' : 'descending') : 'none');
    }
    const rows = data.ops.filter(rowMatches);
    rows.sort((a, b) => {
      const x = opSortValue(a, sortKey);
      const y = opSortValue(b, sortKey);
      return (x < y ? -1 : x > y ? 1 : 0) * sortDir;
    });
    const body = document.createElement('tbody');
    for (const row of rows) {
      const tr = el('tr', {
        'data-label': row.label,
        'data-identifiers': String(row.identifiers.length),
        'data-fused': String(row.fused),
        'data-decomposed': String(row.decomposed),
      });
      const opCell = el('td', {}, row.label);
      if (row.fused) opCell.appendChild(el('span', { class: 'badge fused', title: 'several source ops share this time' }, 'fused'));
      if (row.decomposed) opCell.appendChild(el('span', { class: 'badge decomposed', title: 'one source op run as several delegate steps' }, 'decomposed'));
      // Without an ETRecord nothing is mapped: the summary says so once.
      if (!row.mapped && data.summary.etrecord) opCell.appendChild(el('span', { class: 'badge unmapped', title: 'its events could not be mapped to source ops' }, 'unmapped'));
      tr.appendChild(opCell);
      tr.appendChild(el('td', {}, opModules(row) || '-'));
      tr.appendChild(el('td', {}, row.backend || '-'));
      tr.appendChild(el('td', { class: 'ids' }, ids(row.identifiers) || '-'));
      tr.appendChild(el('td', { class: 'num' }, String(row.n)));
      for (const key of ['mean', 'p50', 'p90']) tr.appendChild(el('td', { class: 'num' }, fmtTime(row[key])));
      tr.appendChild(el('td', { class: 'num' }, row.percent.toFixed(1)));
      for (const c of row.counters || []) {
        tr.appendChild(el('td', { class: 'num counter' }, String(c.sum)));
        tr.appendChild(el('td', { class: 'num counter' }, c.mean.toFixed(1)));
      }
      body.appendChild(tr);
    }
    table.replaceChild(body, table.tBodies[0]);
    document.getElementById('ops-count').textContent = `${rows.length} of ${data.ops.length} rows`;
  }

  function setModuleFilter(index) {
    state.moduleFilter = index;
    const chip = document.getElementById('module-filter');
    chip.hidden = index === null;
    if (index !== null) chip.textContent = `module: ${data.modules[index].path || '(model)'} \u00d7`;
    for (const node of document.querySelectorAll('.module-node')) {
      node.classList.toggle('selected', Number(node.dataset.index) === index);
    }
    fillOpsTable();
  }

  // A graph node's row alone (a click in the graph); null shows all again.
  function setRowFilter(index) {
    state.rowFilter = index;
    const chip = document.getElementById('row-filter');
    chip.hidden = index === null;
    if (index !== null) chip.textContent = `graph node: ${data.ops[index].label} \u00d7`;
    if (index === null) {
      for (const node of document.querySelectorAll('.graph-node.selected')) node.classList.remove('selected');
    }
    fillOpsTable();
  }

  // ---- top ops ---------------------------------------------------------------

  function drawTopOps() {
    const box = document.getElementById('top-ops-chart');
    const top = data.ops.slice().sort((a, b) => b.mean - a.mean).slice(0, 10);
    if (!top.length) { box.appendChild(el('p', { class: 'hint' }, 'No ops.')); return 'empty'; }
    const W = chartWidth(box);
    const labelW = Math.min(220, W * 0.4);
    const barH = 20;
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${top.length * (barH + 4) + 4}`, 'aria-label': 'top ops by mean time' });
    const max = Math.max(...top.map((r) => r.mean)) || 1;
    top.forEach((row, i) => {
      const y = 2 + i * (barH + 4);
      svg.appendChild(labelText({ x: labelW - 6, y: y + barH * 0.7, 'text-anchor': 'end', class: 'top-op-label' }, row.label, 32));
      const w = Math.max(1, ((W - labelW - 90) * row.mean) / max);
      const bar = svgEl('rect', { class: 'bar top-op', x: labelW, y, width: w, height: barH, 'data-label': row.label });
      attachTip(bar, `${row.label}\nmean ${fmtTime(row.mean)} (${row.percent.toFixed(1)}%)\nmodule ${opModules(row) || '-'}`);
      svg.appendChild(bar);
      svg.appendChild(svgEl('text', { x: labelW + w + 6, y: y + barH * 0.7, class: 'muted' }, fmtTime(row.mean)));
    });
    box.appendChild(svg);
    return `${top.length} bars`;
  }

  // ---- time by op type -------------------------------------------------------

  function drawTypes() {
    const box = document.getElementById('types-chart');
    const note = document.getElementById('types-note');
    const MAX_ROWS = 20;
    const types = data.types || [];
    if (!types.length) { box.appendChild(el('p', { class: 'hint' }, 'No ops.')); return 'empty'; }
    const notes = [];
    // The summary says once that there is no ETRecord; here, what that means.
    if (!data.summary.etrecord) notes.push('These are the events\' names (a delegate\'s own names for its steps), not the source model\'s op types: give an ETRecord for those.');
    if (types.length > MAX_ROWS) notes.push(`The ${MAX_ROWS} types with the most time of ${types.length}.`);
    note.textContent = notes.join(' ');
    const rows = types.slice(0, MAX_ROWS);  // sorted by total time in C++
    const W = chartWidth(box);
    const labelW = Math.min(220, W * 0.4);
    const barH = 20;
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${rows.length * (barH + 4) + 4}`, 'aria-label': 'time by op type' });
    const max = Math.max(...rows.map((r) => r.mean)) || 1;
    rows.forEach((row, i) => {
      const y = 2 + i * (barH + 4);
      svg.appendChild(labelText({ x: labelW - 6, y: y + barH * 0.7, 'text-anchor': 'end', class: 'type-label' }, row.type, 32));
      const w = Math.max(1, ((W - labelW - 150) * row.mean) / max);
      const bar = svgEl('rect', { class: 'bar op-type', x: labelW, y, width: w, height: barH, 'data-type': row.type });
      attachTip(bar, `${row.type}${row.mapped ? '' : ' (an event name, not a source op type)'}\n` +
        `${row.count} ${row.mapped ? 'ops' : 'rows'}, on ${row.backends.join(', ')}\n` +
        `mean ${fmtTime(row.mean)} per execution (${row.percent.toFixed(1)}%), total ${fmtTime(row.total)}` +
        (row.shared ? `\n${fmtTime(row.shared)} of it from fused groups, split between their ops` : ''));
      svg.appendChild(bar);
      svg.appendChild(svgEl('text', { x: labelW + w + 6, y: y + barH * 0.7, class: 'muted' },
        `${fmtTime(row.mean)} (${row.percent.toFixed(1)}%)`));
    });
    box.appendChild(svg);
    return `${rows.length} bars`;
  }

  // ---- module tree (icicle) --------------------------------------------------

  function drawModuleTree() {
    const box = document.getElementById('module-tree');
    const mods = data.modules;
    const W = chartWidth(box);
    const rowH = 26;
    const depth = Math.max(0, ...mods.map((m) => m.depth)) + 1;
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${depth * rowH}`, 'aria-label': 'module tree' });
    const children = mods.map(() => []);
    mods.forEach((m, i) => { if (m.parent >= 0) children[m.parent].push(i); });
    // A child's share of its parent: its total over the larger of the
    // parent's total and the children's sum (fused rows count in each module).
    const place = (i, x, w) => {
      const m = mods[i];
      const parentPath = m.parent >= 0 ? mods[m.parent].path : '';
      const name = m.depth === 0 ? data.summary.title
        : (parentPath && m.path.startsWith(`${parentPath}.`) ? m.path.slice(parentPath.length + 1) : m.path);
      const hue = (200 + m.depth * 37) % 360;
      const node = svgEl('rect', {
        class: 'module-node', x, y: m.depth * rowH, width: Math.max(0.5, w), height: rowH - 2,
        fill: `hsl(${hue} 55% ${72 - m.depth * 5}%)`, 'data-index': String(i), 'data-path': m.path,
      });
      node.addEventListener('click', () => setModuleFilter(i === 0 ? null : i));
      attachTip(node, `${m.path || '(the whole model)'}${m.type ? ` [${m.type}]` : ''}\n` +
        `mean ${fmtTime(m.total)}${m.shared ? `, of which ${fmtTime(m.shared)} shared with other modules (fused)` : ''}\n` +
        `${m.ops} ops in ${m.rows} table rows`);
      svg.appendChild(node);
      if (w > 40) {
        svg.appendChild(svgEl('text', { x: x + 4, y: m.depth * rowH + rowH * 0.62, 'pointer-events': 'none' },
          short(name, Math.floor(w / 7))));
      }
      const kids = children[i];
      const sum = kids.reduce((acc, k) => acc + mods[k].total, 0);
      const denom = Math.max(m.total, sum) || 1;
      let cx = x;
      for (const k of kids) {
        const kw = (w * mods[k].total) / denom;
        place(k, cx, kw);
        cx += kw;
      }
    };
    if (mods.length) place(0, 0, W);
    box.appendChild(svg);
    if (mods.length <= 1) box.appendChild(el('p', { class: 'hint' }, data.summary.etrecord ? 'The model has no module hierarchy.' : 'No module hierarchy.'));
    return `${mods.length} modules`;
  }

  // ---- timeline --------------------------------------------------------------

  function drawTimeline() {
    const t = data.timeline;
    const note = document.getElementById('timeline-note');
    const box = document.getElementById('timeline-chart');
    if (!t) { note.textContent = 'The ETDump holds no execution to show.'; return 'empty'; }
    let text = `Execution ${t.execution} (0-based among the dump's executions; ` +
      `${t.chosen === 'median' ? 'the median one by Method::execute time' : 'chosen with --execution'}). `;
    text += t.events_shown < t.events_in_execution
      ? `Sampled: the ${t.events_shown} longest of its ${t.events_in_execution} events are shown (limit ${t.event_limit}). `
      : `All ${t.events_in_execution} events. `;
    note.textContent = `${text}Wheel to zoom, drag to pan, double-click to reset; one lane per logging thread.`;

    const LABEL_W = 90;
    const ROW_H = 18;
    const AXIS_H = 22;
    const W = chartWidth(box);
    const laneDepth = t.lanes.map(() => 0);
    for (const e of t.events) laneDepth[e[0]] = Math.max(laneDepth[e[0]], e[4] + 1);
    const laneY = [];
    let y = AXIS_H;
    for (let l = 0; l < t.lanes.length; l++) { laneY.push(y); y += laneDepth[l] * ROW_H + 8; }
    const H = y;
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, 'aria-label': 'timeline' });
    const full = [0, Math.max(t.extent, 1)];
    let view = full.slice();
    const toX = (v) => LABEL_W + ((v - view[0]) / (view[1] - view[0])) * (W - LABEL_W - 4);

    const groupTip = (e) => () => {
      const g = t.groups[e[1]];
      const lines = [`${g.name}  (${g.role})`, `start ${fmtTime(e[2])}, duration ${fmtTime(e[3])}`];
      if (g.identifier !== null) lines.push(`identifier ${g.identifier}`);
      if (g.op_names.length) lines.push(`ops ${g.op_names.join(' + ')} [${g.op_types.join(', ')}]`);
      const mods = g.modules.filter((m) => m);
      if (mods.length) lines.push(`module ${[...new Set(mods)].join(', ')}`);
      if (g.backend) lines.push(`backend ${g.backend}`);
      if (g.instruction !== null) lines.push(`instruction ${g.instruction}`);
      if (g.metadata) lines.push(`metadata ${g.metadata}`);
      if (!g.mapped) lines.push('UNMAPPED: identifier not in the delegate map');
      return lines.join('\n');
    };

    const layer = svgEl('g');
    svg.appendChild(layer);
    const draw = () => {
      layer.replaceChildren();
      // Axis: about eight ticks.
      const span = view[1] - view[0];
      const step = Math.pow(10, Math.floor(Math.log10(span / 8)));
      const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => span / s <= 8) || step * 10;
      for (let v = Math.ceil(view[0] / nice) * nice; v <= view[1]; v += nice) {
        const x = toX(v);
        layer.appendChild(svgEl('line', { class: 'axis', x1: x, x2: x, y1: AXIS_H - 4, y2: H }));
        layer.appendChild(svgEl('text', { x, y: 12, 'text-anchor': 'middle', class: 'muted' }, fmtTime(v)));
      }
      t.lanes.forEach((lane, l) => {
        layer.appendChild(svgEl('text', { x: 4, y: laneY[l] + 13 }, `thread ${lane.thread}`));
      });
      // Events under a pixel wide are drawn once per pixel and row, so a
      // huge execution keeps a bounded number of nodes.
      const taken = new Set();
      for (const e of t.events) {
        if (e[2] + e[3] < view[0] || e[2] > view[1]) continue;
        const x0 = Math.max(LABEL_W, toX(e[2]));
        const x1 = Math.min(W - 4, toX(e[2] + e[3]));
        const w = Math.max(0.75, x1 - x0);
        if (x1 - x0 < 1) {
          const key = `${e[0]}:${e[4]}:${Math.floor(x0)}`;
          if (taken.has(key)) continue;
          taken.add(key);
        }
        const g = t.groups[e[1]];
        const ey = laneY[e[0]] + e[4] * ROW_H;
        const rect = svgEl('rect', {
          class: `tl-event role-${g.role}${w < 3 ? ' thin' : ''}`, x: x0, y: ey, width: w, height: ROW_H - 2, 'data-role': g.role,
        });
        attachTip(rect, groupTip(e));
        layer.appendChild(rect);
        if (w > 60) {
          layer.appendChild(svgEl('text', { x: x0 + 3, y: ey + 12, 'pointer-events': 'none', fill: '#fff' },
            short(g.op_names.length ? `${g.name} [${g.op_names.join('+')}]` : g.name, Math.floor(w / 6.5))));
        }
      }
    };
    draw();

    const timeAt = (clientX) => {
      const r = svg.getBoundingClientRect();
      const px = ((clientX - r.left) / r.width) * W;
      return view[0] + ((px - LABEL_W) / (W - LABEL_W - 4)) * (view[1] - view[0]);
    };
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      const at = timeAt(e.clientX);
      const f = e.deltaY < 0 ? 0.8 : 1.25;
      const span = Math.min(full[1] - full[0], Math.max(1e-3, (view[1] - view[0]) * f));
      let lo = at - (at - view[0]) * (span / (view[1] - view[0]));
      lo = Math.max(full[0], Math.min(lo, full[1] - span));
      view = [lo, lo + span];
      draw();
    }, { passive: false });
    let drag = null;
    svg.addEventListener('mousedown', (e) => { drag = { x: e.clientX, view: view.slice() }; });
    window.addEventListener('mouseup', () => { drag = null; });
    svg.addEventListener('mousemove', (e) => {
      if (!drag) return;
      const r = svg.getBoundingClientRect();
      const dt = ((drag.x - e.clientX) / r.width) * W / (W - LABEL_W - 4) * (drag.view[1] - drag.view[0]);
      const span = drag.view[1] - drag.view[0];
      const lo = Math.max(full[0], Math.min(drag.view[0] + dt, full[1] - span));
      view = [lo, lo + span];
      draw();
    });
    svg.addEventListener('dblclick', () => { view = full.slice(); draw(); });
    box.appendChild(svg);
    return `${t.events_shown} events`;
  }

  // ---- numeric ---------------------------------------------------------------

  function numericValue(v) {
    if (v === 'inf' || v === 'nan' || v === '-inf') return Infinity;
    return v;
  }

  function drawNumeric() {
    const n = data.numeric;
    if (!n) return 'absent';
    document.getElementById('numeric').hidden = false;
    const box = document.getElementById('numeric-chart');
    const rows = n.rows;
    const ff = n.first_failure;
    const ffText = ff === null ? 'no row exceeds the threshold'
      : `first failure: ${rows[ff].label}` + (rows[ff].identifiers.length ? ` (identifiers ${ids(rows[ff].identifiers)})` : '');
    document.getElementById('numeric-note').textContent =
      `Execution ${n.execution}; ${n.metric} of each logged output against the ETRecord's reference, ` +
      `in execution order (${n.scale} scale); a row fails when ${n.fails_when} the threshold ` +
      `${fmtMetric(n.threshold)}. Grey marks: not compared. ${ffText}.`;
    const W = chartWidth(box);
    const H = 260;
    const L = 70;
    const B = 70;
    const T = 16;
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, 'aria-label': 'numeric error per op' });
    const finite = rows.map((r) => r.value).filter((v) => typeof v === 'number');
    const thr = typeof n.threshold === 'number' ? n.threshold : 0;
    const log = n.scale === 'log';
    let lo;
    let hi;
    if (log) {
      const pos = finite.concat([thr]).filter((v) => v > 0);
      lo = Math.pow(10, Math.floor(Math.log10(Math.min(...pos, 1)) - 1));
      hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...pos, 1e-12)) + 0.5));
    } else {
      lo = Math.min(...finite, thr);
      hi = Math.max(...finite, thr);
      if (hi === lo) { hi += 1; lo -= 1; }
    }
    const yOf = (v) => {
      if (v === Infinity) return T;
      if (log) {
        const c = Math.max(v, lo);
        return T + (H - T - B) * (1 - (Math.log10(c) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)));
      }
      return T + (H - T - B) * (1 - (v - lo) / (hi - lo));
    };
    const xOf = (i) => L + ((i + 0.5) / Math.max(rows.length, 1)) * (W - L - 10);
    svg.appendChild(svgEl('line', { class: 'axis', x1: L, x2: L, y1: T, y2: H - B }));
    svg.appendChild(svgEl('line', { class: 'axis', x1: L, x2: W - 10, y1: H - B, y2: H - B }));
    if (log) {
      for (let e = Math.round(Math.log10(lo)); e <= Math.round(Math.log10(hi)); e++) {
        const yy = yOf(Math.pow(10, e));
        svg.appendChild(svgEl('line', { class: 'axis', x1: L - 4, x2: W - 10, y1: yy, y2: yy, 'stroke-opacity': 0.4 }));
        svg.appendChild(svgEl('text', { x: L - 6, y: yy + 4, 'text-anchor': 'end', class: 'muted' }, `1e${e}`));
      }
    } else {
      for (const v of [lo, (lo + hi) / 2, hi]) {
        svg.appendChild(svgEl('text', { x: L - 6, y: yOf(v) + 4, 'text-anchor': 'end', class: 'muted' }, fmtMetric(v)));
      }
    }
    const ty = yOf(thr);
    svg.appendChild(svgEl('line', { class: 'threshold', id: 'numeric-threshold', x1: L, x2: W - 10, y1: ty, y2: ty }));
    svg.appendChild(svgEl('text', { x: W - 12, y: ty - 4, 'text-anchor': 'end', fill: 'currentColor', class: 'muted' },
      `threshold ${fmtMetric(n.threshold)}`));
    const labelEvery = Math.max(1, Math.ceil(rows.length / 40));
    rows.forEach((r, i) => {
      const x = xOf(i);
      const compared = r.value !== null;
      const yy = compared ? yOf(numericValue(r.value)) : H - B;
      const cls = !compared ? 'point not-compared' : r.exceeds ? 'point exceeds' : 'point';
      const p = svgEl('circle', { class: cls, cx: x, cy: yy, r: compared ? 4 : 3, 'data-order': String(r.order) });
      attachTip(p, `${r.label} (${r.kind})\n${n.metric} ${compared ? fmtMetric(r.value) : `not compared: ${r.status}`}` +
        (r.identifiers.length ? `\nidentifiers ${ids(r.identifiers)}` : '') +
        (r.reference_op ? `\ncompared with the reference of ${r.reference_op}` : '') + (r.note ? `\n${r.note}` : ''));
      svg.appendChild(p);
      if (i % labelEvery === 0) {
        svg.appendChild(svgEl('text', { x, y: H - B + 10, transform: `rotate(40 ${x} ${H - B + 10})`, class: 'muted' },
          short(r.label, 18)));
      }
    });
    if (ff !== null) {
      const x = xOf(ff);
      const yy = yOf(numericValue(rows[ff].value));
      svg.appendChild(svgEl('line', { class: 'threshold', x1: x, x2: x, y1: T, y2: H - B }));
      svg.appendChild(svgEl('circle', { class: 'first-failure', id: 'numeric-first-failure', cx: x, cy: yy, r: 9, 'data-order': String(rows[ff].order) }));
      svg.appendChild(svgEl('text', { x: x + 12, y: Math.max(T + 10, yy - 10), fill: 'currentColor' }, `first failure: ${short(rows[ff].label, 30)}`));
    }
    box.appendChild(svg);
    return `${rows.length} rows`;
  }

  // ---- quant -----------------------------------------------------------------

  // SQNR per quantized op, worst isolated loss first: a bar for the op's
  // own loss (isolated) and a tick for the loss accumulated up to it.
  function drawQuant() {
    const q = data.quant;
    if (!q) return 'absent';
    document.getElementById('quant').hidden = false;
    const box = document.getElementById('quant-chart');
    const MAX_ROWS = 40;
    const rows = q.rows.slice(0, MAX_ROWS);
    document.getElementById('quant-note').textContent =
      `Execution ${q.execution}; SQNR in dB (higher is better) of each quantized op: the bar is its own ` +
      `quantization loss (isolated: the op alone on float inputs), the tick the loss accumulated up to it ` +
      `(float vs the run). Worst first` + (q.rows.length > MAX_ROWS ? `; the first ${MAX_ROWS} of ${q.rows.length}.` : '.');
    const W = chartWidth(box);
    const labelW = Math.min(260, W * 0.35);
    const barH = 16;
    const H = rows.length * (barH + 4) + 28;
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, 'aria-label': 'quantization loss per op' });
    const value = (v) => (typeof v === 'number' ? Math.min(v, 80) : null);
    const max = Math.max(10, ...rows.map((r) => value(r.isolated_sqnr_db) || 0), ...rows.map((r) => value(r.sqnr_db) || 0));
    const xOf = (v) => labelW + ((W - labelW - 60) * Math.max(0, v)) / max;
    for (const tick of [0, 10, 20, 30, 40, 50, 60, 70, 80].filter((t) => t <= max)) {
      svg.appendChild(svgEl('line', { class: 'axis', x1: xOf(tick), x2: xOf(tick), y1: 0, y2: H - 20, 'stroke-opacity': 0.3 }));
      svg.appendChild(svgEl('text', { x: xOf(tick), y: H - 6, 'text-anchor': 'middle', class: 'muted' }, `${tick} dB`));
    }
    rows.forEach((r, i) => {
      const y = 4 + i * (barH + 4);
      const label = svgEl('text', { x: labelW - 6, y: y + barH * 0.75, 'text-anchor': 'end' }, short(r.label, 36));
      attachTip(label, r.label);
      svg.appendChild(label);
      const iso = value(r.isolated_sqnr_db);
      if (iso !== null) {
        const bar = svgEl('rect', { class: 'bar quant-bar', x: labelW, y, width: Math.max(1, xOf(iso) - labelW), height: barH, 'data-label': r.label });
        attachTip(bar, `${r.label}\nisolated ${fmtMetric(r.isolated_sqnr_db)} dB, quant ${fmtMetric(r.quant_sqnr_db)} dB, ` +
          `kernel ${fmtMetric(r.kernel_sqnr_db)} dB, total ${fmtMetric(r.sqnr_db)} dB` +
          (typeof r.clipped_fraction === 'number' ? `\nclipped ${(100 * r.clipped_fraction).toFixed(2)}%` : ''));
        svg.appendChild(bar);
      }
      const total = value(r.sqnr_db);
      if (total !== null) {
        svg.appendChild(svgEl('line', { class: 'threshold quant-total', x1: xOf(total), x2: xOf(total), y1: y - 1, y2: y + barH + 1 }));
      }
    });
    box.appendChild(svg);
    return `${rows.length} bars`;
  }

  // ---- baseline and compare: per-row deltas -----------------------------------

  // Horizontal bars from a middle axis: losses (delta > 0) red to the right,
  // gains green to the left; at most MAX_ROWS rows, a note says when cut.
  // `tip(row)` and `valueText(row)` say what a bar means.
  function drawDeltas(box, allRows, ariaLabel, tip, valueText) {
    const MAX_ROWS = 40;
    const rows = allRows.slice(0, MAX_ROWS);
    if (allRows.length > MAX_ROWS) box.appendChild(el('p', { class: 'hint' }, `The first ${MAX_ROWS} of ${allRows.length} rows.`));
    const W = chartWidth(box);
    const labelW = Math.min(240, W * 0.35);
    const barH = 18;
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${rows.length * (barH + 4) + 8}`, 'aria-label': ariaLabel });
    const max = Math.max(1e-9, ...rows.map((r) => Math.abs(r.delta)));
    const mid = labelW + (W - labelW) / 2;
    const half = (W - labelW) / 2 - 130;  // room for the value beside the longest bar
    svg.appendChild(svgEl('line', { class: 'axis', x1: mid, x2: mid, y1: 0, y2: rows.length * (barH + 4) + 8 }));
    rows.forEach((r, i) => {
      const y = 4 + i * (barH + 4);
      svg.appendChild(labelText({ x: labelW - 6, y: y + barH * 0.7, 'text-anchor': 'end' }, r.label, 34));
      const w = Math.max(1, (half * Math.abs(r.delta)) / max);
      const up = r.delta > 0;
      const bar = svgEl('rect', { class: `delta ${up ? 'delta-up' : 'delta-down'}`, x: up ? mid : mid - w, y, width: w, height: barH, 'data-label': r.label });
      attachTip(bar, tip(r));
      svg.appendChild(bar);
      svg.appendChild(svgEl('text', { x: up ? mid + w + 4 : mid - w - 4, y: y + barH * 0.7, 'text-anchor': up ? 'start' : 'end', class: 'muted' }, valueText(r)));
    });
    box.appendChild(svg);
    return `${rows.length} bars`;
  }

  const signed = (text, v) => `${v > 0 ? '+' : ''}${text}`;

  function drawBaseline() {
    const b = data.baseline;
    if (!b) return 'absent';
    document.getElementById('baseline').hidden = false;
    return drawDeltas(document.getElementById('baseline-chart'), b.rows, 'per-op deltas',
      (r) => `${r.label}${!r.in_baseline ? ' (new)' : !r.in_current ? ' (gone)' : ''}\nbaseline ${fmtTime(r.baseline)} -> current ${fmtTime(r.current)}\n` +
        `delta ${signed(fmtTime(r.delta), r.delta)} (${signed(r.delta_percent.toFixed(1), r.delta_percent)}%)`,
      (r) => `${signed(fmtTime(r.delta), r.delta)} (${signed(r.delta_percent.toFixed(1), r.delta_percent)}%)`);
  }

  // Another program of the same model, per source op (report --compare).
  function drawCompare() {
    const c = data.compare;
    if (!c) return 'absent';
    document.getElementById('compare').hidden = false;
    const ratio = (r) => (r.ratio === null ? '' : ` (x${r.ratio.toFixed(2)})`);
    document.getElementById('compare-note').textContent =
      `A: ${c.name_a} (${fmtTime(c.total_a)} per execution), B: ${c.name_b} (${fmtTime(c.total_b)}); ` +
      `ops joined by ${c.join === 'names' ? 'name' : 'structure (quantization nodes aside)'}; ` +
      `${c.rows.length} ops in both, ${c.only_a.length} only in A, ${c.only_b.length} only in B.`;
    const outcome = drawDeltas(document.getElementById('compare-chart'), c.rows, 'per-layer comparison',
      (r) => `${r.label}${r.label_b ? ` (B: ${r.label_b})` : ''}\n${r.op_types.join(', ')}${r.module ? ` in ${r.module}` : ''}\n` +
        `A ${fmtTime(r.a)} on ${r.backend_a || 'portable'}, B ${fmtTime(r.b)} on ${r.backend_b || 'portable'}\n` +
        `B - A ${signed(fmtTime(r.delta), r.delta)}${ratio(r)}`,
      (r) => `${signed(fmtTime(r.delta), r.delta)}${ratio(r)}`);
    const apart = document.getElementById('compare-apart');
    for (const [side, rows] of [['A', c.only_a], ['B', c.only_b]]) {
      if (!rows.length) continue;
      const list = el('ul', { class: 'compare-only', 'data-side': side });
      for (const r of rows) list.appendChild(el('li', {}, `${r.label || '(no source op)'}: ${fmtTime(side === 'A' ? r.a : r.b)}`));
      apart.appendChild(el('p', { class: 'hint' }, `Only in ${side} (${side === 'A' ? c.name_a : c.name_b}):`));
      apart.appendChild(list);
    }
    return outcome;
  }

  section('summary', drawSummary);
  section('ops', drawOpsTable);
  section('top-ops', drawTopOps);
  section('modules', drawModuleTree);
  section('types', drawTypes);
  // report_graph.js, embedded before this file.
  section('graph', () => window.glassboxGraph.draw({ data, el, svgEl, attachTip, short, fmtTime, filterToRow: setRowFilter }));
  section('timeline', drawTimeline);
  section('quant', drawQuant);
  section('numeric', drawNumeric);
  section('baseline', drawBaseline);
  section('compare', drawCompare);
  // Milliseconds from navigation start to the last chart drawn.
  state.renderedMs = performance.now();
  state.done = true;
}());
