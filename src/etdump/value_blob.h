#pragma once
// The arena encoding of one logged value, written at log time and turned
// into ETDump Value tables at serialization. Private to src/etdump.
//
//   ValueBlobHeader | num_tensors x (TensorBlob, sizes[ndim], strides[ndim])

#include <cstddef>
#include <cstdint>

#include "glassbox/etdump/internal/etdump_gen_storage.h"

namespace glassbox::etdump::internal {

struct ValueBlobHeader {
  std::uint8_t kind;  // runtime::ValueView::Kind
  std::uint8_t padding[3];
  std::uint32_t num_tensors;
  std::int64_t int_value;  // kInt, or kBool as 0/1
  double double_value;     // kDouble
};
static_assert(sizeof(ValueBlobHeader) == 24);

struct TensorBlob {
  std::int64_t offset;  // in the data sink, -1 when the data was not written
  std::int8_t dtype;    // ScalarType
  std::uint8_t ndim;
  std::uint8_t padding[6];
  // followed by int64 sizes[ndim], int64 strides[ndim]
};
static_assert(sizeof(TensorBlob) == 16);

constexpr std::size_t tensor_blob_size(std::size_t ndim) {
  return sizeof(TensorBlob) + 2 * ndim * sizeof(std::int64_t);
}

}  // namespace glassbox::etdump::internal
