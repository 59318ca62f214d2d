// Writes version 1.0 files, which every numpy reads; the header is padded
// with spaces to a 64-byte boundary and ends in '\n', as numpy writes it.

#include <cstring>
#include <string_view>

#include "glassbox/io/output_files.h"
#include "glassbox/npy/npy.h"
#include "src/npy/npy_format.h"

namespace glassbox::npy {
namespace {

struct IntFormat {
  ScalarType dtype;
  const char* descr;
  std::size_t size;
};

constexpr IntFormat kIntFormats[] = {{ScalarType::kLong, "<i8", 8},  {ScalarType::kInt, "<i4", 4},
                                     {ScalarType::kShort, "<i2", 2}, {ScalarType::kChar, "|i1", 1},
                                     {ScalarType::kByte, "|u1", 1},  {ScalarType::kBool, "|b1", 1}};

const IntFormat* int_format(ScalarType dtype) {
  for (const IntFormat& format : kIntFormats) {
    if (format.dtype == dtype) return &format;
  }
  return nullptr;
}

}  // namespace

StatusOr<std::vector<std::uint8_t>> serialize(const Array& array) {
  std::int64_t numel = 1;
  for (std::int64_t d : array.shape) {
    if (d < 0) return Status(Error::kInvalidArgument, "npy: negative dimension in the shape");
    numel *= d;
  }
  if (static_cast<std::int64_t>(array.data.size()) != numel) {
    return Status(Error::kInvalidArgument, "npy: " + std::to_string(array.data.size()) +
                                               " elements for a shape of " + std::to_string(numel));
  }
  // Integer arrays are written exactly, in their own dtype.
  const bool integers = !array.int_data.empty();
  if (integers && static_cast<std::int64_t>(array.int_data.size()) != numel) {
    return Status(Error::kInvalidArgument, "npy: " + std::to_string(array.int_data.size()) +
                                               " integers for a shape of " + std::to_string(numel));
  }
  const char* descr = "<f4";
  std::size_t element_size = sizeof(float);
  if (integers) {
    const IntFormat* format = int_format(array.int_dtype);
    if (format == nullptr) {
      return Status(Error::kInvalidArgument, "npy: integers cannot be written as " +
                                                 std::string(to_string(array.int_dtype)));
    }
    descr = format->descr;
    element_size = format->size;
  }
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < array.shape.size(); ++i) {
    header += std::to_string(array.shape[i]);
    // A 1-tuple needs its trailing comma in Python syntax.
    if (i + 1 < array.shape.size() || array.shape.size() == 1) header += ",";
    if (i + 1 < array.shape.size()) header += " ";
  }
  header += "), }";
  constexpr std::size_t kLengthSize = 2;
  const std::size_t unpadded = internal::kPreambleSize + kLengthSize + header.size() + 1;
  const std::size_t padding = (internal::kHeaderAlignment - unpadded % internal::kHeaderAlignment) %
                              internal::kHeaderAlignment;
  header.append(padding, ' ');
  header += '\n';
  if (header.size() > 0xffff) {
    return Status(Error::kInvalidArgument, "npy: shape too long for a version 1.0 header");
  }

  // Sized once and filled in place (GCC 12 misreads incremental inserts
  // here as overflows).
  const std::size_t header_start = internal::kPreambleSize + kLengthSize;
  const std::size_t data_start = header_start + header.size();
  std::vector<std::uint8_t> out(data_start + static_cast<std::size_t>(numel) * element_size);
  std::memcpy(out.data(), internal::kMagic.data(), internal::kMagicSize);
  out[internal::kMagicSize] = 1;  // Version 1.0.
  out[internal::kMagicSize + 1] = 0;
  const auto length = static_cast<std::uint16_t>(header.size());
  out[internal::kPreambleSize] = static_cast<std::uint8_t>(length & 0xff);
  out[internal::kPreambleSize + 1] = static_cast<std::uint8_t>(length >> 8);
  std::memcpy(out.data() + header_start, header.data(), header.size());
  if (integers) {
    // Little-endian: an integer's low bytes come first, so its first
    // element_size bytes are the value truncated to that width.
    const bool truth = array.int_dtype == ScalarType::kBool;
    for (std::size_t i = 0; i < array.int_data.size(); ++i) {
      const std::int64_t v = truth ? array.int_data[i] != 0 : array.int_data[i];
      std::memcpy(out.data() + data_start + i * element_size, &v, element_size);
    }
  } else if (!array.data.empty()) {
    std::memcpy(out.data() + data_start, array.data.data(), array.data.size() * sizeof(float));
  }
  return out;
}

Status write_file(const std::string& path, const Array& array) {
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, serialize(array));
  return io::write_file(
      path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace glassbox::npy
