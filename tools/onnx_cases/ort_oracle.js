#!/usr/bin/env node
// ONNX Runtime as the oracle for tools/onnx_cases/make_cases.py: runs every
// case of a manifest and writes each output's raw bytes beside a JSON
// description, since Debian's onnx 1.12 cannot run or check these opsets.
//
//   node tools/onnx_cases/ort_oracle.js MANIFEST.json
//
// MANIFEST.json: [{"model": path, "dir": folder, "inputs": [{"name", "type",
// "dims", "file"}]}]. For each case it writes dir/ort_outputs.json
// ([{"name", "type", "dims", "file"}], raw little-endian data in dir) or
// dir/ort_error.txt when ONNX Runtime refuses the model.
'use strict';

const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const ARRAYS = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array,
  int64: BigInt64Array, int32: Int32Array, int16: Int16Array, int8: Int8Array,
  uint64: BigUint64Array, uint32: Uint32Array, uint16: Uint16Array, uint8: Uint8Array,
  bool: Uint8Array,
};

function loadOrt() {
  const dir = process.env.ORT_NODE_DIR || path.join(ROOT, 'third_party', 'onnxruntime_node');
  const pkg = path.join(dir, 'node_modules', 'onnxruntime-node');
  if (!fs.existsSync(pkg)) {
    process.stderr.write(`ort_oracle.js: no onnxruntime-node in ${dir}: ` +
                         'run tools/setup.sh --with-peers\n');
    process.exit(2);
  }
  return require(pkg);
}

function readTensor(ort, input) {
  const Array_ = ARRAYS[input.type];
  if (!Array_) throw new Error(`input ${input.name}: type ${input.type} not supported`);
  const buf = fs.readFileSync(input.file);
  const data = new Array_(buf.length / Array_.BYTES_PER_ELEMENT);
  Buffer.from(data.buffer).set(buf);
  return new ort.Tensor(input.type, data, input.dims);
}

async function runCase(ort, c) {
  const session = await ort.InferenceSession.create(c.model, {
    graphOptimizationLevel: 'disabled', intraOpNumThreads: 1});
  const feeds = {};
  for (const input of c.inputs) feeds[input.name] = readTensor(ort, input);
  const results = await session.run(feeds);
  const described = session.outputNames.map((name, i) => {
    const t = results[name];
    const file = path.join(c.dir, `ort_output_${i}.bin`);
    const data = t.data;
    fs.writeFileSync(file, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    return {name, type: t.type, dims: t.dims.map(Number), file};
  });
  fs.writeFileSync(path.join(c.dir, 'ort_outputs.json'), JSON.stringify(described));
}

async function main() {
  const ort = loadOrt();
  const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  for (const c of cases) {
    try {
      await runCase(ort, c);
    } catch (e) {
      fs.writeFileSync(path.join(c.dir, 'ort_error.txt'), String(e.message || e));
    }
  }
}

main().catch((e) => {
  process.stderr.write(`ort_oracle.js: ${e.stack || e}\n`);
  process.exit(2);
});
