#!/usr/bin/env node
// ONNX Runtime peer of `switchyard bench`: the same .onnx file, the same
// workloads, the same JSON ("switchyard.bench/1", framework "onnxruntime").
//
// Usage:
//   node benchmarks/onnxruntime_peer.js --model M.onnx [--input X.npy] [--output Y.npy]
//       [--batch 1,8] [--input-shape 1x3x224x224] [--warmup 2] [--iterations 10]
//       [--threads 2] [--inter-threads 1] [--optimization all] [--no-spin]
//       [--seed 0] [--json FILE] [--profile FILE]
//
// ONNX Runtime is npm's onnxruntime-node (CPU execution provider), installed by
// `tools/setup.sh --with-peers` into third_party/onnxruntime_node (or point
// ORT_NODE_DIR at a folder whose node_modules holds it).
//
// Input: --input X.npy (comma-separated, one per model input, in order) runs
// that batch once per iteration; without it, a seeded standard-normal input of
// the model's shape per --batch entry (a symbolic first dimension takes the
// batch; --input-shape sets the whole shape of the first input).
//
// Each iteration, as pytorch_peer.py does on the CPU: copy the host input into
// the preallocated buffer that backs the input tensor (h2d), session.run
// (forward), copy the first output into a preallocated host array (d2h);
// end to end is host time around the three. `--warmup` untimed iterations come
// first. Session: intra-op threads --threads (default 2; ONNX Runtime counts
// the calling thread), inter-op 1, sequential execution, graph optimizations
// "all" (ORT_ENABLE_ALL). ORT's intra-op threads spin while waiting by
// default; --no-spin turns that off (session.intra_op.allow_spinning=0).
//
// Prints a table like pytorch_peer.py and one JSON line per batch
// ({"framework": "onnxruntime", ..., "forward_ms": {"median", "min", "p90", ...}});
// --json FILE writes the full schema that benchmarks/compare.py merges;
// --output writes the output of the last run as .npy (a folder of <name>.npy
// when the model has several outputs). --profile FILE turns on ONNX Runtime's
// session profiling and writes its trace (a JSON list with one event per
// node per run, warm-up runs included) to FILE, for
// benchmarks/compare_op_profiles.py.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

const SCHEMA = 'switchyard.bench/1';
const ROOT = path.resolve(__dirname, '..');

function loadOrt() {
  const dirs = [];
  if (process.env.ORT_NODE_DIR) dirs.push(path.resolve(process.env.ORT_NODE_DIR));
  dirs.push(path.join(ROOT, 'third_party', 'onnxruntime_node'));
  for (const dir of dirs) {
    const pkg = path.join(dir, 'node_modules', 'onnxruntime-node');
    if (fs.existsSync(path.join(pkg, 'package.json'))) {
      return {ort: require(pkg), version: require(path.join(pkg, 'package.json')).version};
    }
  }
  fail('onnxruntime-node is not installed (looked in ' + dirs.join(', ') +
       '): run tools/setup.sh --with-peers, or set ORT_NODE_DIR');
}

function fail(message) {
  process.stderr.write('onnxruntime_peer.js: ' + message + '\n');
  process.exit(2);
}

// ---------------------------------------------------------------------------
// .npy (format versions 1-3, little-endian, C order)

const NPY_TYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<f2': ['float16', Uint16Array],  // bits, as onnxruntime-node takes float16
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array],
  '<i2': ['int16', Int16Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') {
    fail(file + ': not a .npy file (no \\x93NUMPY magic)');
  }
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) fail(file + ': unreadable .npy header ' + header.trim());
  if (order[1] === 'True') fail(file + ': Fortran-order arrays are not supported');
  const type = NPY_TYPES[descr[1]];
  if (!type) fail(file + ': dtype ' + descr[1] + ' not supported (' +
                  Object.keys(NPY_TYPES).join(', ') + ')');
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const bytes = count * type[1].BYTES_PER_ELEMENT;
  if (buf.length - start < bytes) fail(file + ': truncated (' + (buf.length - start) +
                                       ' data bytes, ' + bytes + ' needed)');
  // Copy into an aligned array (the data offset need not be a multiple of 8).
  const data = new type[1](count);
  Buffer.from(data.buffer).set(buf.subarray(start, start + bytes));
  return {type: type[0], dims, data};
}

function writeNpy(file, type, dims, data) {
  const descr = Object.keys(NPY_TYPES).find((k) => NPY_TYPES[k][0] === type);
  if (!descr) fail('cannot write ' + type + ' as .npy');
  const shape = dims.length === 1 ? '(' + dims[0] + ',)' : '(' + dims.join(', ') + ')';
  let header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ', }';
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

// ---------------------------------------------------------------------------
// Statistics, as pytorch_peer.py computes them (numpy's linear interpolation).

function percentile(values, q) {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  const pos = q * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, s.length - 1);
  return s[lo] + (pos - lo) * (s[hi] - s[lo]);
}

function stats(samples) {
  return {
    median: percentile(samples, 0.5),
    p90: percentile(samples, 0.9),
    p95: percentile(samples, 0.95),
    min: Math.min(...samples),
    max: Math.max(...samples),
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
    samples,
  };
}

// Seeded standard normals: mulberry32 and Box-Muller (values do not change
// the speed; the seed only makes runs repeatable).
function normals(count, seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const r = Math.sqrt(-2 * Math.log(next()));
    const phi = 2 * Math.PI * next();
    out[i] = r * Math.cos(phi);
    if (i + 1 < count) out[i + 1] = r * Math.sin(phi);
  }
  return out;
}

function cpuName() {
  const cpus = os.cpus();
  return cpus.length ? cpus[0].model.trim() : 'CPU';
}

// ---------------------------------------------------------------------------

// Flags of `names` ("--flag": key) into `args` ("--flag=v" or "--flag v"; a
// key whose default is a number takes an integer), --no-spin into
// args.spin, --help printing `script`'s opening comment. `fail` reports a
// bad flag; `seen` (optional) is told each key given.
function parseFlags(argv, names, args, script, fail, seen = () => {}) {
  for (let i = 0; i < argv.length; i++) {
    let [flag, value] = argv[i].split(/=(.*)/s, 2);
    if (flag === '--help' || flag === '-h') {
      const text = fs.readFileSync(script, 'utf8').split('\n');
      process.stdout.write(text.slice(1, text.findIndex((l) => l.startsWith("'use"))).
          map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
      process.exit(0);
    }
    if (flag === '--no-spin') { args.spin = false; continue; }
    const key = names[flag];
    if (!key) fail('unknown flag ' + flag + ' (see --help)');
    if (value === undefined) {
      if (i + 1 >= argv.length) fail(flag + ' needs a value');
      value = argv[++i];
    }
    args[key] = typeof args[key] === 'number' ? Number(value) : value;
    seen(key);
    if (typeof args[key] === 'number' && !Number.isInteger(args[key])) {
      fail(flag + ' needs an integer, got ' + value);
    }
  }
}

function parseArgs(argv) {
  const args = {
    model: '', input: '', output: '', batch: '1,8', inputShape: '', warmup: 2,
    iterations: 10, threads: 2, interThreads: 1, optimization: 'all', spin: true,
    seed: 0, json: '', profile: '',
  };
  const names = {
    '--model': 'model', '--input': 'input', '--output': 'output', '--batch': 'batch',
    '--input-shape': 'inputShape', '--input_shape': 'inputShape', '--warmup': 'warmup',
    '--iterations': 'iterations', '--threads': 'threads', '--inter-threads': 'interThreads',
    '--optimization': 'optimization', '--seed': 'seed', '--json': 'json',
    '--profile': 'profile',
  };
  parseFlags(argv, names, args, __filename, fail, (key) => {
    if (key === 'batch') args.batchGiven = true;
  });
  if (!args.model) fail('--model M.onnx is required');
  if (args.iterations < 1 || args.warmup < 0 || args.threads < 0 || args.interThreads < 0) {
    fail('need --iterations >= 1, --warmup >= 0, --threads >= 0');
  }
  if (!['disabled', 'basic', 'extended', 'all'].includes(args.optimization)) {
    fail('--optimization is one of disabled, basic, extended, all');
  }
  return args;
}

const TYPED = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array,
  int64: BigInt64Array, int32: Int32Array, int16: Int16Array, int8: Int8Array,
  uint8: Uint8Array, bool: Uint8Array,
};

// The feeds of one workload: [{name, type, dims, host}] (host: the values in
// host memory, copied into the tensor's own buffer each iteration).
function makeInputs(session, args, batch) {
  const meta = session.inputMetadata;
  if (args.input) {
    const files = args.input.split(',');
    if (files.length !== meta.length) {
      fail('--input has ' + files.length + ' file(s), the model has ' + meta.length +
           ' input(s): ' + session.inputNames.join(', '));
    }
    return meta.map((m, i) => {
      const x = readNpy(files[i]);
      if (m.type !== x.type) fail(files[i] + ' is ' + x.type + ', input ' + m.name + ' wants ' + m.type);
      checkShape(m, x.dims, files[i]);
      return {name: m.name, type: x.type, dims: x.dims, host: x.data};
    });
  }
  return meta.map((m, i) => {
    let dims;
    if (i === 0 && args.inputShape) {
      dims = args.inputShape.split('x').map(Number);
      if (dims.some((d) => !Number.isInteger(d) || d < 1)) fail('bad --input-shape ' + args.inputShape);
    } else {
      dims = m.shape.map((d, k) => {
        if (typeof d === 'number' && d >= 0) {
          if (k === 0 && batch !== null && d !== batch) {
            fail('--batch ' + batch + ': input ' + m.name + ' has a static batch of ' + d +
                 ' (export with a symbolic batch, e.g. tools/export_onnx_models.py --dynamic-batch)');
          }
          return d;
        }
        if (k === 0) return batch === null ? 1 : batch;
        fail('input ' + m.name + ' has symbolic dimension ' + k + ' (' + d + '): set --input-shape');
      });
    }
    checkShape(m, dims, '--input-shape');
    if (m.type !== 'float32') fail('a random input is float32 only; input ' + m.name + ' is ' + m.type + ': pass --input');
    const count = dims.reduce((a, b) => a * b, 1);
    return {name: m.name, type: m.type, dims, host: normals(count, args.seed + 1 + batch + 7919 * i)};
  });
}

function checkShape(meta, dims, what) {
  const ok = meta.shape.length === dims.length &&
      meta.shape.every((d, k) => typeof d !== 'number' || d < 0 || d === dims[k]);
  if (!ok) {
    fail(what + ': shape ' + dims.join('x') + ' does not fit input ' + meta.name + ' [' +
         meta.shape.join(', ') + ']');
  }
}

async function measure(ort, session, inputs, args) {
  const feeds = {};
  const buffers = inputs.map((x) => {
    const buf = new TYPED[x.type](x.host.length);
    feeds[x.name] = new ort.Tensor(x.type, buf, x.dims);
    return buf;
  });
  const first = session.outputNames[0];
  let outHost = null;
  let last = null;
  const samples = {forward: [], h2d: [], d2h: [], end_to_end: []};
  const now = () => Number(process.hrtime.bigint()) / 1e6;
  for (let i = 0; i < args.warmup + args.iterations; i++) {
    const t0 = now();
    inputs.forEach((x, k) => buffers[k].set(x.host));
    const ta = now();
    const out = await session.run(feeds);
    const tb = now();
    const y = out[first].data;
    if (!outHost || outHost.length !== y.length) outHost = new y.constructor(y.length);
    outHost.set(y);
    const t1 = now();
    last = out;
    if (i < args.warmup) continue;
    samples.h2d.push(ta - t0);
    samples.forward.push(tb - ta);
    samples.d2h.push(t1 - tb);
    samples.end_to_end.push(t1 - t0);
  }
  return {samples, last};
}

function writeOutputs(session, out, target) {
  if (session.outputNames.length === 1) {
    const t = out[session.outputNames[0]];
    writeNpy(target, t.type, t.dims, t.data);
    return [target];
  }
  fs.mkdirSync(target, {recursive: true});
  return session.outputNames.map((name) => {
    const t = out[name];
    const file = path.join(target, name.replace(/[^A-Za-z0-9_.-]/g, '_') + '.npy');
    writeNpy(file, t.type, t.dims, t.data);
    return file;
  });
}

// vgg11 for .../vgg11_dynamic/model.onnx (tools/export_onnx_models.py's
// layout) and for vgg11.onnx.
function modelName(file) {
  let base = path.basename(file, '.onnx');
  if (base === 'model') base = path.basename(path.dirname(path.resolve(file)));
  return base.replace(/_dynamic$/, '');
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const {ort, version} = loadOrt();
  if (!fs.existsSync(args.model)) fail(args.model + ': no such file');
  const options = {
    executionProviders: ['cpu'],
    intraOpNumThreads: args.threads,
    interOpNumThreads: args.interThreads,
    executionMode: 'sequential',
    graphOptimizationLevel: args.optimization,
  };
  if (!args.spin) options.extra = {session: {intra_op: {allow_spinning: '0'}}};
  // ORT names its trace <prefix>_<date>.json in a folder of its choice: a
  // private prefix, found and moved to --profile at the end.
  const profilePrefix = path.join(os.tmpdir(), 'ort_profile_' + process.pid);
  if (args.profile) {
    options.enableProfiling = true;
    options.profileFilePrefix = profilePrefix;
  }
  let session;
  try {
    session = await ort.InferenceSession.create(args.model, options);
  } catch (e) {
    fail(args.model + ': ONNX Runtime could not load it: ' + e.message);
  }
  // A static batch is the only one unless --batch asks for others (an error).
  const staticBatch = typeof session.inputMetadata[0].shape[0] === 'number' &&
      !args.batchGiven;
  const batches = args.input || args.inputShape || staticBatch ? [null] :
      args.batch.split(',').filter((b) => b.trim()).map(Number);
  if (batches.some((b) => b !== null && (!Number.isInteger(b) || b < 1))) fail('bad --batch ' + args.batch);

  const device = 'cpu:0';
  const results = [];
  let last = null;
  for (const b of batches) {
    const inputs = makeInputs(session, args, b);
    const batch = inputs[0].dims[0];
    process.stderr.write(device + ' batch ' + batch + ': ' + args.warmup + ' + ' +
                         args.iterations + ' iterations\n');
    const m = await measure(ort, session, inputs, args);
    last = m.last;
    const row = {device, batch};
    for (const key of ['forward', 'h2d', 'd2h', 'end_to_end']) row[key + '_ms'] = stats(m.samples[key]);
    row.images_per_s = batch / (row.end_to_end_ms.median / 1e3);
    row.speedup_vs_cpu = {forward: 1.0, end_to_end: 1.0};  // the only device is cpu:0
    results.push(row);
  }

  const threads = args.threads || os.cpus().length;
  console.log('onnxruntime-node ' + version + ', ' + threads + ' intra-op threads, ' +
              args.interThreads + ' inter-op, optimization ' + args.optimization +
              (args.spin ? '' : ', no spinning'));
  const pad = (s, n) => String(s).padStart(n);
  console.log(['device'.padEnd(8), pad('batch', 5), pad('forward', 18), pad('h2d', 18),
               pad('d2h', 18), pad('end to end', 18), pad('images/s', 9)].join(' '));
  for (const r of results) {
    const mp = (k) => r[k].median.toFixed(3) + ' / ' + r[k].p95.toFixed(3);
    console.log([r.device.padEnd(8), pad(r.batch, 5), pad(mp('forward_ms'), 18),
                 pad(mp('h2d_ms'), 18), pad(mp('d2h_ms'), 18), pad(mp('end_to_end_ms'), 18),
                 pad(r.images_per_s.toFixed(2), 9)].join(' '));
  }
  const model = modelName(args.model);
  for (const r of results) {
    const r4 = (v) => Math.round(v * 1e4) / 1e4;
    const brief = (s) => ({median: r4(s.median), min: r4(s.min), p90: r4(s.p90), p95: r4(s.p95)});
    console.log(JSON.stringify({
      framework: 'onnxruntime', model, device: r.device, batch: r.batch, threads,
      forward_ms: brief(r.forward_ms), end_to_end_ms: brief(r.end_to_end_ms),
    }));
  }

  if (args.profile) {
    session.endProfiling();
    const base = path.basename(profilePrefix);
    const written = [...new Set([path.dirname(profilePrefix), '.'].flatMap((dir) =>
        fs.readdirSync(dir).filter((f) => f.startsWith(base)).map((f) => path.resolve(dir, f))))];
    if (written.length !== 1) fail('--profile: ONNX Runtime wrote ' + written.length + ' profiles');
    const from = written[0];
    try {
      fs.copyFileSync(from, args.profile);
    } catch (e) {
      fail('--profile ' + args.profile + ': cannot write it (' + e.message + '); ONNX Runtime\'s ' +
           'profile is kept at ' + from);
    }
    fs.unlinkSync(from);
    console.log('wrote ' + args.profile);
  }
  if (args.output) {
    const files = writeOutputs(session, last, args.output);
    console.log('wrote ' + files.join(', '));
  }
  if (args.json) {
    let command = 'node benchmarks/onnxruntime_peer.js --model ' + args.model;
    command += args.input ? ' --input ' + args.input : ' --batch ' + batches.join(',');
    if (args.inputShape) command += ' --input-shape ' + args.inputShape;
    command += ' --warmup ' + args.warmup + ' --iterations ' + args.iterations +
        ' --threads ' + args.threads + ' --inter-threads ' + args.interThreads +
        ' --optimization ' + args.optimization + (args.spin ? '' : ' --no-spin');
    const doc = {
      schema: SCHEMA,
      framework: 'onnxruntime',
      model,
      warmup: args.warmup,
      iterations: args.iterations,
      batches: results.map((r) => r.batch),
      context: {
        onnxruntime: version,
        node: process.version,
        cpu_threads: String(threads),
        inter_op_threads: String(args.interThreads),
        graph_optimization: args.optimization,
        spinning: String(args.spin),
        model_file: path.resolve(args.model),
        date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        command,
      },
      devices: [{device, available: true, name: cpuName(),
                 properties: {threads: String(threads), execution_provider: 'cpu'}}],
      results,
    };
    fs.writeFileSync(args.json, JSON.stringify(doc, null, 2) + '\n');
    console.log('wrote ' + args.json);
  }
}

if (require.main !== module) {
  // Required by another script (benchmarks/onnxruntime_images.js): its helpers, no run.
  module.exports = {loadOrt, parseFlags, readNpy, writeNpy};
} else {
  main().catch((e) => fail(e.stack || String(e)));
}
