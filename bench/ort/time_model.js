#!/usr/bin/env node
// Median latency of one model on ONNX Runtime (CPU execution provider,
// graph optimizations on), for comparison with `glassbox run` in
// scripts/bench_ort.sh.
// Usage: node time_model.js MODEL.onnx INPUT.npy THREADS [ITERATIONS] [WARMUP]
// Prints the median milliseconds per run, nothing else.
'use strict';
const ort = require('onnxruntime-node');
const {readNpy} = require('./npy');

async function main() {
  const [model, input, threads, iterations = '20', warmup = '3'] = process.argv.slice(2);
  if (!model || !input || !threads) {
    console.error('usage: time_model.js MODEL.onnx INPUT.npy THREADS [ITERATIONS] [WARMUP]');
    process.exit(2);
  }
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const feeds = {[session.inputNames[0]]: readNpy(input, ort)};
  for (let i = 0; i < Number(warmup); ++i) await session.run(feeds);
  const times = [];
  for (let i = 0; i < Number(iterations); ++i) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  console.log(median.toFixed(3));
}

main().catch((e) => {
  console.error(`time_model: ${e.message}`);
  process.exit(1);
});
