#pragma once
/// @file
/// NumPy `.npy` files (format versions 1.0, 2.0 and 3.0): the way PyTorch
/// users already store inputs and reference outputs.
///
///   StatusOr<npy::Array> x = npy::read_file("input.npy");   // float32 data
///   Status s = npy::write_file("out.npy", {{1, 1000}, logits});
///
/// Reading verifies everything before trusting it: the magic, the version,
/// the header length, the header dict (keys 'descr', 'fortran_order',
/// 'shape' and nothing else), the dtype, and that the payload holds exactly
/// the shape's elements. float32 is read as is; float64, int64 and int32
/// are converted to float32 (PyTorch reference outputs are sometimes
/// float64). Only C order: fortran_order True is an error, not a transpose.
/// Writing always produces version 1.0: little-endian float32 ('<f4'), or
/// an integer or bool dtype for integer arrays (Array::int_dtype).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "glassbox/core/scalar_type.h"
#include "glassbox/core/status.h"

namespace glassbox::npy {

/// A C-order float32 array.
struct Array {
  std::vector<std::int64_t> shape;  ///< Empty for a 0-d array.
  std::vector<float> data;          ///< Row-major, shape's product elements.
  /// Integer arrays (i4, i8) as read: the exact values, which `data` holds
  /// only as float (token ids and indices must not round). Empty otherwise.
  /// The writer writes an array with int_data exactly, in `int_dtype`, and
  /// ignores `data`; without it, `data` as '<f4'.
  std::vector<std::int64_t> int_data = {};
  /// With int_data: the dtype written, each value truncated to its width:
  /// kLong '<i8', kInt '<i4', kShort '<i2', kChar '|i1', kByte '|u1' or
  /// kBool '|b1' (truth values: nonzero is 1). The reader sets kLong.
  ScalarType int_dtype = ScalarType::kLong;

  /// The product of `shape` (1 for a 0-d array).
  std::int64_t numel() const;

  friend bool operator==(const Array&, const Array&) = default;
};

/// Parses `bytes` (a whole .npy file). `source` names it in errors (e.g.
/// the path). Errors: kCorruptData for a malformed or truncated file,
/// kNotSupported for a valid file we do not read (fortran_order, big-endian
/// or an unsupported dtype), kVersionMismatch for an unknown version.
StatusOr<Array> parse(std::span<const std::uint8_t> bytes, const std::string& source = "<memory>");

/// Reads and parses the file at `path` (kAccessFailed if unreadable).
StatusOr<Array> read_file(const std::string& path);

/// The bytes of a version 1.0 C-order .npy file holding `array`.
/// kInvalidArgument if data.size() (or int_data's) does not match the
/// shape, or for an int_dtype not listed at Array::int_dtype.
StatusOr<std::vector<std::uint8_t>> serialize(const Array& array);

/// Writes `array` to `path` (kAccessFailed if it cannot).
Status write_file(const std::string& path, const Array& array);

}  // namespace glassbox::npy
