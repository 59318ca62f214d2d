// The report's graph section: the model before lowering (report data
// "graph"), laid out as a DAG by dagre (npm, embedded at build time), with
// each delegate call's nodes on one coloured ground, a fused group drawn as
// one box listing its members, and nodes shaded by their share of time, by
// numeric error or by int8 SQNR. Drag pans, the wheel zooms, a click on a
// node filters the ops table to the node's row.
// report.js calls window.glassboxGraph.draw(page) with the page's helpers.
(function () {
  'use strict';

  const BACKEND_COLOURS = ['#4e79a7', '#59a14f', '#b07aa1', '#f28e2b', '#76b7b2', '#edc948', '#9c755f'];
  const PAD = 8;

  // A colour from white (0) to deep orange (1).
  function heat(t) {
    const x = Math.max(0, Math.min(1, t));
    const r = 255;
    const g = Math.round(255 - x * (255 - 110));
    const b = Math.round(255 - x * (255 - 20));
    return `rgb(${r},${g},${b})`;
  }

  // Boxes: a fused row's nodes together, every other node alone.
  function makeBoxes(graph, ops) {
    const boxes = [];
    const boxOf = new Array(graph.nodes.length);
    const byRow = new Map();
    graph.nodes.forEach((node, i) => {
      const row = node.row === null ? null : ops[node.row];
      if (row && row.fused) {
        if (!byRow.has(node.row)) {
          byRow.set(node.row, boxes.length);
          boxes.push({ members: [], row: node.row });
        }
        boxOf[i] = byRow.get(node.row);
        boxes[boxOf[i]].members.push(i);
      } else {
        boxOf[i] = boxes.length;
        boxes.push({ members: [i], row: node.row });
      }
    });
    for (const box of boxes) {
      const first = graph.nodes[box.members[0]];
      box.partition = first.partition;
      const lines = box.members.map((i) => `${graph.nodes[i].name} (${graph.nodes[i].type})`);
      box.lines = lines.length > 1 ? ['fused:', ...lines] : lines;
      // One source op the delegate ran as several steps: its steps inside.
      const row = box.row === null ? null : ops[box.row];
      box.decomposed = Boolean(row && row.decomposed);
      if (box.decomposed) box.lines.push(`  as ${row.identifiers.length} delegate steps: ${row.identifiers.join(', ')}`);
      const longest = Math.max(...box.lines.map((l) => Math.min(l.length, 34)));
      box.width = 16 + longest * 6.6;
      box.height = 8 + box.lines.length * 14;
    }
    return { boxes, boxOf };
  }

  // What each shading reads, and how a value maps to 0..1 (1 = worst).
  function shadings(graph, ops) {
    const out = [{ key: 'time', title: 'share of time', value: (box) => (box.row === null ? null : ops[box.row].percent / 100) }];
    const worstOf = (box, pick, better) => {
      let worst = null;
      for (const i of box.members) {
        const v = graph.nodes[i][pick];
        if (typeof v !== 'number') continue;
        if (worst === null || better(worst, v)) worst = v;
      }
      return worst;
    };
    if (graph.error_metric) {
      const below = graph.error_fails_when === 'below';
      const values = graph.nodes.map((n) => n.error).filter((v) => typeof v === 'number');
      const lo = Math.min(...values);
      const hi = Math.max(...values);
      // Errors span decades: a log scale between the best and worst seen.
      const norm = (v) => {
        if (below) return hi > lo ? (hi - v) / (hi - lo) : 0;
        const l = Math.log10(Math.max(v, 1e-12));
        const a = Math.log10(Math.max(lo, 1e-12));
        const b = Math.log10(Math.max(hi, 1e-12));
        return b > a ? (l - a) / (b - a) : 0;
      };
      out.push({
        key: 'error', title: `numeric error (${graph.error_metric})`,
        value: (box) => { const v = worstOf(box, 'error', (w, x) => (below ? x < w : x > w)); return v === null ? null : norm(v); },
        text: (box) => worstOf(box, 'error', (w, x) => (below ? x < w : x > w)),
      });
    }
    if (graph.nodes.some((n) => typeof n.sqnr_db === 'number')) {
      // SQNR loss: 40 dB and above is clean, 0 dB is noise.
      out.push({
        key: 'sqnr', title: 'int8 SQNR loss',
        value: (box) => { const v = worstOf(box, 'sqnr_db', (w, x) => x < w); return v === null ? null : 1 - Math.max(0, Math.min(40, v)) / 40; },
        text: (box) => worstOf(box, 'sqnr_db', (w, x) => x < w),
      });
    }
    return out;
  }

  // dagre's cost grows with the number of ranks times the nodes (it builds
  // a graph per rank), so a model, mostly chains of single-input,
  // single-output ops, is laid out as chains: a run of boxes each feeding
  // only the next is one dagre node as tall as its boxes, which are then
  // stacked inside it. Edges can only enter a chain at its first box and
  // leave from its last. More than SLICE chains are laid out in slices of
  // consecutive chains (the node order is topological) stacked top to
  // bottom, edges between slices drawn straight: dagre's recursion also
  // overflows on very deep graphs.
  const SLICE = 60;
  const CHAIN_GAP = 12;

  function chainsOf(boxes, edges) {
    const ins = boxes.map(() => []);
    const outs = boxes.map(() => []);
    for (const [a, b] of edges) { outs[a].push(b); ins[b].push(a); }
    const chainOf = new Array(boxes.length);
    const chains = [];
    boxes.forEach((box, i) => {
      const p = ins[i].length === 1 ? ins[i][0] : -1;
      if (p >= 0 && p < i && outs[p].length === 1) {
        const chain = chains[chainOf[p]];
        if (chain.members[chain.members.length - 1] === p) {
          chain.members.push(i);
          chainOf[i] = chainOf[p];
          return;
        }
      }
      chainOf[i] = chains.length;
      chains.push({ members: [i] });
    });
    for (const c of chains) {
      c.width = Math.max(...c.members.map((i) => boxes[i].width));
      c.height = c.members.reduce((h, i) => h + boxes[i].height, 0) + CHAIN_GAP * (c.members.length - 1);
    }
    return { chains, chainOf };
  }

  function layoutSlice(units, first, last, edges, large) {
    const g = new dagre.graphlib.Graph({ multigraph: false });
    g.setGraph({ rankdir: 'TB', nodesep: 14, ranksep: 26, marginx: 0, marginy: 0,
      ranker: large ? 'longest-path' : 'network-simplex' });
    g.setDefaultEdgeLabel(() => ({}));
    for (let i = first; i < last; i++) g.setNode(String(i), { width: units[i].width, height: units[i].height });
    for (const [a, b] of edges) g.setEdge(String(a), String(b));
    dagre.layout(g, { disableOptimalOrderHeuristic: large });
    for (let i = first; i < last; i++) { const n = g.node(String(i)); units[i].x = n.x; units[i].y = n.y; }
    return { width: g.graph().width, height: g.graph().height, edges: g.edges().map((e) => g.edge(e).points) };
  }

  function layout(graph, boxes, boxOf) {
    const started = performance.now();
    const boxEdges = [];
    const seen = new Set();
    for (const [from, to] of graph.edges) {
      const a = boxOf[from];
      const b = boxOf[to];
      if (a === undefined || b === undefined || a === b || seen.has(`${a},${b}`)) continue;
      seen.add(`${a},${b}`);
      boxEdges.push([a, b]);
    }
    const { chains, chainOf } = chainsOf(boxes, boxEdges);
    const large = chains.length > SLICE;
    const sliceOf = (unit) => Math.floor(unit / SLICE);
    const inner = new Map();
    const across = [];
    const inChain = [];
    for (const [a, b] of boxEdges) {
      const u = chainOf[a];
      const v = chainOf[b];
      if (u === v) { inChain.push([a, b]); continue; }
      if (sliceOf(u) !== sliceOf(v)) { across.push([a, b]); continue; }
      if (!inner.has(sliceOf(u))) inner.set(sliceOf(u), []);
      inner.get(sliceOf(u)).push([u, v]);
    }
    const slices = [];
    for (let first = 0; first < chains.length; first += SLICE) {
      const last = Math.min(chains.length, first + SLICE);
      slices.push({ first, last, ...layoutSlice(chains, first, last, inner.get(sliceOf(first)) || [], large) });
    }
    // Stack the slices, each centred on the widest, and each chain's boxes
    // inside its node.
    const MARGIN = 20;
    const GAP = 40;
    const width = Math.max(...slices.map((sl) => sl.width)) + 2 * MARGIN;
    let top = MARGIN;
    const edges = [];
    for (const sl of slices) {
      const dx = (width - sl.width) / 2;
      for (let c = sl.first; c < sl.last; c++) {
        const chain = chains[c];
        let y = chain.y + top - chain.height / 2;
        for (const i of chain.members) {
          boxes[i].x = chain.x + dx;
          boxes[i].y = y + boxes[i].height / 2;
          y += boxes[i].height + CHAIN_GAP;
        }
      }
      for (const points of sl.edges) edges.push(points.map((pt) => ({ x: pt.x + dx, y: pt.y + top })));
      top += sl.height + GAP;
    }
    for (const [a, b] of [...inChain, ...across]) {
      edges.push([{ x: boxes[a].x, y: boxes[a].y + boxes[a].height / 2 }, { x: boxes[b].x, y: boxes[b].y - boxes[b].height / 2 }]);
    }
    return { edges, width, height: top - GAP + MARGIN, chains: chains.length, slices: slices.length, ms: performance.now() - started };
  }

  // Pan with a drag, zoom with the wheel around the pointer.
  function panZoom(svg, group, width, height) {
    const view = { x: 0, y: 0, k: 1 };
    const box = svg.getBoundingClientRect();
    view.k = Math.min(1, (box.width || 800) / width);
    view.x = Math.max(0, ((box.width || 800) - width * view.k) / 2);  // centred
    const apply = () => group.setAttribute('transform', `translate(${view.x},${view.y}) scale(${view.k})`);
    apply();
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = svg.getBoundingClientRect();
      const px = e.clientX - r.left;
      const py = e.clientY - r.top;
      const f = Math.exp(-e.deltaY * 0.0015);
      const k = Math.max(0.02, Math.min(8, view.k * f));
      view.x = px - ((px - view.x) * k) / view.k;
      view.y = py - ((py - view.y) * k) / view.k;
      view.k = k;
      apply();
    }, { passive: false });
    let drag = null;
    svg.addEventListener('mousedown', (e) => { drag = { x: e.clientX - view.x, y: e.clientY - view.y, moved: false }; });
    window.addEventListener('mousemove', (e) => {
      if (!drag) return;
      view.x = e.clientX - drag.x;
      view.y = e.clientY - drag.y;
      drag.moved = true;
      apply();
    });
    window.addEventListener('mouseup', () => { setTimeout(() => { drag = null; }, 0); });
    return { view, dragging: () => drag !== null && drag.moved, height };
  }

  function draw(page) {
    const { data, el, svgEl, attachTip, short, filterToRow } = page;
    const graph = data.graph;
    if (!graph) return 'absent';
    document.getElementById('graph').hidden = false;
    const note = document.getElementById('graph-note');
    if (typeof dagre === 'undefined') {
      note.textContent = 'This build of glassbox has no graph layout library: run scripts/setup.sh and rebuild to draw the graph.';
      return 'no layout library';
    }
    if (!graph.nodes.length) { note.textContent = 'The ETRecord\'s graph has no nodes.'; return 'empty'; }
    const ops = data.ops;
    const { boxes, boxOf } = makeBoxes(graph, ops);
    const laid = layout(graph, boxes, boxOf);
    const chart = document.getElementById('graph-chart');
    const svg = svgEl('svg', { class: 'graph-svg', 'aria-label': 'the model graph' });
    chart.appendChild(svg);
    const root = svgEl('g');
    svg.appendChild(root);

    // Delegate calls: a coloured ground behind their boxes.
    const backends = [...new Set(graph.partitions.map((p) => p.backend))];
    graph.partitions.forEach((p, index) => {
      const members = boxes.filter((b) => b.partition === index);
      if (!members.length) return;
      const x0 = Math.min(...members.map((b) => b.x - b.width / 2)) - PAD;
      const y0 = Math.min(...members.map((b) => b.y - b.height / 2)) - PAD - 12;
      const x1 = Math.max(...members.map((b) => b.x + b.width / 2)) + PAD;
      const y1 = Math.max(...members.map((b) => b.y + b.height / 2)) + PAD;
      const colour = BACKEND_COLOURS[backends.indexOf(p.backend) % BACKEND_COLOURS.length];
      root.appendChild(svgEl('rect', { class: 'graph-partition', x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 8,
        fill: colour, stroke: colour, 'data-backend': p.backend }));
      root.appendChild(svgEl('text', { x: x0 + 6, y: y0 + 12, class: 'graph-partition-label', fill: colour },
        `${p.backend} (instruction ${p.instruction})`));
    });

    for (const points of laid.edges) {
      const d = points.map((pt, i) => `${i ? 'L' : 'M'}${pt.x.toFixed(1)},${pt.y.toFixed(1)}`).join(' ');
      root.appendChild(svgEl('path', { class: 'graph-edge', d }));
    }

    const modes = shadings(graph, ops);
    const select = document.getElementById('graph-shade');
    for (const m of modes) select.appendChild(el('option', { value: m.key }, m.title));
    // An int8 run shades by SQNR, a numeric comparison by error, else time.
    select.value = modes[modes.length - 1].key;

    const pz = panZoom(svg, root, laid.width, laid.height);
    const rects = [];
    boxes.forEach((box) => {
      const g = svgEl('g', { class: 'graph-node', 'data-row': box.row === null ? '' : String(box.row),
        'data-members': String(box.members.length), 'data-decomposed': String(box.decomposed),
        'data-partition': box.partition === null ? '' : String(box.partition),
        transform: `translate(${(box.x - box.width / 2).toFixed(1)},${(box.y - box.height / 2).toFixed(1)})` });
      const rect = svgEl('rect', { width: box.width, height: box.height, rx: 4,
        class: box.members.length > 1 ? 'fused' : box.decomposed ? 'decomposed' : '' });
      g.appendChild(rect);
      box.lines.forEach((line, i) => g.appendChild(svgEl('text', { x: 8, y: 16 + i * 14 }, short(line, 34))));
      attachTip(g, () => {
        const row = box.row === null ? null : ops[box.row];
        const mode = modes.find((m) => m.key === select.value);
        const extra = mode.text ? `\n${mode.title}: ${mode.text(box) === null ? '-' : mode.text(box)}` : '';
        const where = box.partition === null ? 'portable (not delegated)' : graph.partitions[box.partition].backend;
        return `${box.lines.join('\n')}\n${where}\n` +
          (row ? `mean ${page.fmtTime(row.mean)} (${row.percent.toFixed(1)}%)` : 'no time logged') + extra;
      });
      g.addEventListener('click', () => {
        if (pz.dragging() || box.row === null) return;
        filterToRow(box.row);
        for (const other of root.querySelectorAll('.graph-node.selected')) other.classList.remove('selected');
        g.classList.add('selected');
      });
      root.appendChild(g);
      rects.push([box, rect]);
    });

    const legend = document.getElementById('graph-legend');
    const shade = () => {
      const mode = modes.find((m) => m.key === select.value);
      for (const [box, rect] of rects) {
        const v = mode.value(box);
        rect.setAttribute('fill', v === null ? '#f3f3f3' : heat(v));
      }
      legend.textContent = `white to orange: ${mode.key === 'time' ? 'less to more time' : 'better to worse'}; grey: no value`;
    };
    select.addEventListener('change', shade);
    shade();

    note.textContent = `${graph.nodes.length} nodes (method ${graph.method}) in ${boxes.length} boxes and ${laid.chains} chains, ` +
      `${graph.partitions.length} delegate call(s); laid out in ${laid.ms.toFixed(0)} ms.`;
    window.glassboxReport.graph = { nodes: graph.nodes.length, boxes: boxes.length,
      partitions: graph.partitions.length, chains: laid.chains, slices: laid.slices, layoutMs: laid.ms };
    return `${boxes.length} boxes`;
  }

  window.glassboxGraph = { draw };
}());
