// Optimises the release bundle's WASM files in place, as `wasm-opt -Oz` does (binaryen's default pipeline at
// optimise level 2, shrink level 2), in a few long-lived workers instead of one process per file.
//
// Why: the bundle is ~160 files and binaryen here is the npm package (binaryen compiled to WASM, run by node).
// A process per file spends most of its time starting up and running binaryen's own code before node has
// optimised it; one worker per core that loads binaryen once and takes the next file when it is done did the
// same work in 32 s instead of 2 min 17 s, for 0.2 % more bytes (docs/PERFORMANCE.md, "Optimising the release bundle").
//
// Usage: node scripts/wasm-opt.mjs --jobs N FILE.wasm...   (prints one line: files, bytes, time, the slowest)

import { readFileSync, writeFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';

const binaryenUrl = new URL('../end2end/node_modules/binaryen/index.js', import.meta.url);

if (isMainThread) {
  const args = process.argv.slice(2);
  let jobs = 2;
  if (args[0] === '--jobs') {
    jobs = Math.max(1, Number.parseInt(args[1], 10) || 1);
    args.splice(0, 2);
  }
  // Largest first, so the long files do not end up last on one worker.
  const queue = args
    .map((file) => ({ file, before: readFileSync(file).length }))
    .sort((a, b) => b.before - a.before);
  const total = queue.length;
  const started = performance.now();
  const done = [];
  let failed = false;
  await Promise.all(
    Array.from({ length: Math.min(jobs, total) }, () => new Promise((resolve) => {
      const worker = new Worker(new URL(import.meta.url));
      const next = () => {
        const item = queue.shift();
        if (item) worker.postMessage(item.file); else worker.terminate().then(resolve);
        return item;
      };
      let current = next();
      worker.on('message', ({ after, ms }) => {
        done.push({ ...current, after, ms });
        current = next();
      });
      worker.on('error', (error) => {
        failed = true;
        console.error(`wasm-opt: ${current ? current.file : 'a worker'}: ${error.message}`);
        worker.terminate().then(resolve);
      });
    })),
  );
  if (failed || done.length !== total) {
    console.error(`wasm-opt: ${done.length} of ${total} files optimised`);
    process.exit(1);
  }
  const sum = (key) => done.reduce((s, d) => s + d[key], 0);
  const slowest = [...done].sort((a, b) => b.ms - a.ms).slice(0, 3)
    .map((d) => `${d.file.split('/').pop()} ${(d.ms / 1000).toFixed(1)} s`).join(', ');
  console.log(`wasm-opt: ${total} files, ${sum('before')} → ${sum('after')} bytes in ` +
    `${((performance.now() - started) / 1000).toFixed(1)} s on ${jobs} workers (slowest: ${slowest})`);
} else {
  const { default: binaryen } = await import(binaryenUrl);
  binaryen.setOptimizeLevel(2);
  binaryen.setShrinkLevel(2);
  const wanted = binaryen.Features.BulkMemory | binaryen.Features.NontrappingFPToInt;
  parentPort.on('message', (file) => {
    const started = performance.now();
    const module = binaryen.readBinary(readFileSync(file));
    module.setFeatures(module.getFeatures() | wanted);
    module.optimize();
    const out = module.emitBinary();
    module.dispose();
    writeFileSync(file, out);
    parentPort.postMessage({ after: out.length, ms: performance.now() - started });
  });
}
