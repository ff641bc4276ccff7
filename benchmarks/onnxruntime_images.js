#!/usr/bin/env node
// ONNX Runtime over a folder of images at their own sizes: the model half of
// ONNX Runtime's whole script in benchmarks/compare_detector_folder.sh (the
// decoding half is benchmarks/images_to_npy.py, which writes the .npy files).
//
// Usage:
//   node benchmarks/onnxruntime_images.js --model M.onnx --inputs DIR [--threads 2]
//       [--no-spin] [--json FILE] [--output DIR]
//
// One InferenceSession, set as benchmarks/onnxruntime_peer.js sets it: CPU
// execution provider, intra-op threads --threads (ONNX Runtime counts the
// calling thread), inter-op 1, sequential execution, graph optimizations
// "all"; --no-spin turns spinning off (session.intra_op.allow_spinning=0).
// Then each .npy of DIR once, in file name order, as the model's one input
// (float32 [3, H, W]: a detector with its transform in the graph). Prints per
// image its file, shape and run time (session.run), then the session's
// creation time and the sum of the runs. --output DIR writes <stem>.scores.npy
// per image (the output named "scores", else the third output); --json FILE
// writes the same numbers.
'use strict';

const fs = require('fs');
const path = require('path');
// The peer exports its helpers when required (its CLI is unchanged).
const {loadOrt, parseFlags, readNpy, writeNpy} = require('./onnxruntime_peer.js');

function fail(message) {
  process.stderr.write('onnxruntime_images.js: ' + message + '\n');
  process.exit(2);
}

function parseArgs(argv) {
  const args = {model: '', inputs: '', threads: 2, spin: true, json: '', output: ''};
  const names = {'--model': 'model', '--inputs': 'inputs', '--threads': 'threads',
                 '--json': 'json', '--output': 'output'};
  parseFlags(argv, names, args, __filename, fail);
  if (!args.model || !args.inputs) fail('--model M.onnx and --inputs DIR are required');
  if (!Number.isInteger(args.threads) || args.threads < 0) fail('--threads needs an integer >= 0');
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(args.model)) fail(args.model + ': no such file');
  if (!fs.existsSync(args.inputs) || !fs.statSync(args.inputs).isDirectory()) {
    fail(args.inputs + ': not a folder');
  }
  const files = fs.readdirSync(args.inputs).filter((f) => f.endsWith('.npy')).sort();
  if (!files.length) fail(args.inputs + ': no .npy files');
  const {ort, version} = loadOrt();
  const options = {
    executionProviders: ['cpu'],
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  if (!args.spin) options.extra = {session: {intra_op: {allow_spinning: '0'}}};
  const now = () => Number(process.hrtime.bigint()) / 1e6;
  const t0 = now();
  let session;
  try {
    session = await ort.InferenceSession.create(args.model, options);
  } catch (e) {
    fail(args.model + ': ONNX Runtime could not load it: ' + e.message);
  }
  const sessionMs = now() - t0;
  if (session.inputNames.length !== 1) {
    fail(args.model + ' has ' + session.inputNames.length + ' inputs; one [3, H, W] image is needed');
  }
  const input = session.inputNames[0];
  const names = session.outputNames;
  const scores = names.includes('scores') ? 'scores' : names[2];
  if (args.output && scores === undefined) {
    fail('--output: the model has no output named "scores" and no third output (' + names.join(', ') + ')');
  }
  if (args.output) fs.mkdirSync(args.output, {recursive: true});

  console.log('onnxruntime-node ' + version + ', ' + args.threads + ' intra-op threads, 1 inter-op, ' +
              'optimization all' + (args.spin ? '' : ', no spinning') + '; ' + files.length +
              ' image(s) from ' + args.inputs);
  const images = [];
  let total = 0;
  for (const file of files) {
    const x = readNpy(path.join(args.inputs, file));
    if (x.type !== 'float32' || x.dims.length !== 3 || x.dims[0] !== 3) {
      fail(file + ': ' + x.type + ' [' + x.dims.join(', ') + '], not float32 [3, H, W]');
    }
    const feeds = {[input]: new ort.Tensor('float32', x.data, x.dims)};
    const ta = now();
    const out = await session.run(feeds);
    const ms = now() - ta;
    total += ms;
    const row = {file, shape: x.dims, ms};
    if (scores !== undefined && out[scores]) row.detections = out[scores].dims[0];
    images.push(row);
    console.log(file + '  ' + x.dims.join('x') + '  ' + ms.toFixed(1) + ' ms' +
                (row.detections === undefined ? '' : '  (' + row.detections + ' detections)'));
    if (args.output) {
      const t = out[scores];
      writeNpy(path.join(args.output, path.basename(file, '.npy') + '.scores.npy'), t.type, t.dims, t.data);
    }
  }
  console.log('session creation ' + sessionMs.toFixed(1) + ' ms; runs ' + total.toFixed(1) +
              ' ms in all (' + images.length + ' images)');
  if (args.json) {
    const doc = {
      framework: 'onnxruntime', onnxruntime: version, node: process.version,
      model_file: path.resolve(args.model), inputs: path.resolve(args.inputs),
      threads: args.threads, inter_op_threads: 1, graph_optimization: 'all', spinning: args.spin,
      session_ms: sessionMs, total_run_ms: total, images,
    };
    fs.writeFileSync(args.json, JSON.stringify(doc, null, 2) + '\n');
  }
}

main().catch((e) => fail(e.stack || String(e)));
