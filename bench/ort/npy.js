// Reads a little-endian, C-order .npy file (what scripts/export_torchvision.py
// writes) as an onnxruntime-node tensor: float32, or int64 (token ids, kept
// exact as BigInt64Array). Shared by time_model.js and profile_model.js.
'use strict';
const fs = require('fs');

const DTYPES = {'<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array]};

function readNpy(path, ort) {
  const bytes = fs.readFileSync(path);
  if (bytes.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${path}: not a .npy file`);
  const major = bytes[6];
  const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLength;
  const header = bytes.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = (header.match(/'descr': '([^']*)'/) || [])[1];
  if (!(descr in DTYPES) || header.includes("'fortran_order': True")) {
    throw new Error(`${path}: not a C-order float32 or int64 .npy file`);
  }
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter((s) => s.trim())
      .map(Number);
  const [type, TypedArray] = DTYPES[descr];
  // A copy: the typed array needs its own, aligned buffer (the header's
  // length leaves the data at any offset).
  const data = new TypedArray(bytes.buffer.slice(bytes.byteOffset + start,
                                                 bytes.byteOffset + bytes.length));
  return new ort.Tensor(type, data, shape);
}

module.exports = {readNpy};
