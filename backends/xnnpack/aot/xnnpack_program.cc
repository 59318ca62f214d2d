#include "backends/xnnpack/aot/xnnpack_program.h"

#include <cstring>
#include <string>
#include <type_traits>
#include <variant>

namespace glassbox::backends::xnnpack {
namespace {

// Appends little-endian values; the hosts we build on are little-endian,
// which a static_assert in the runtime parser also pins down.
class Writer {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put_bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + n);
  }
  void put_tensor(const XnnTensorDesc& t) {
    put(static_cast<std::uint8_t>(t.dims.size()));
    put(static_cast<std::uint8_t>(t.layout));
    for (std::int64_t d : t.dims) put(d);
  }
  /// Zero bytes up to the next multiple of `alignment`.
  void pad_to(std::size_t alignment) {
    while (bytes_.size() % alignment != 0) bytes_.push_back(0);
  }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
};

}  // namespace

std::vector<std::uint8_t> encode_xnn_program(const XnnProgram& program) {
  Writer w;
  w.put_bytes(kXnnMagic, sizeof(kXnnMagic));
  w.put(kXnnFormatMajor);
  w.put(kXnnFormatMinor);
  w.put(static_cast<std::uint32_t>(program.inputs.size()));
  w.put(static_cast<std::uint32_t>(program.outputs.size()));
  w.put(static_cast<std::uint32_t>(program.ops.size()));
  w.put(std::uint32_t{0});
  for (const XnnTensorDesc& t : program.inputs) w.put_tensor(t);
  w.put(static_cast<std::uint32_t>(program.constants.size()));
  for (const XnnConstant& c : program.constants) {
    w.put_tensor(c.desc);
    w.pad_to(4);
    w.put_bytes(c.data.data(), c.data.size() * sizeof(float));
  }
  for (const XnnOp& op : program.ops) {
    w.put(static_cast<std::uint8_t>(op.kind));
    if (const auto* id = std::get_if<std::int64_t>(&op.identifier)) {
      w.put(static_cast<std::uint8_t>(XnnIdentifierTag::kInt));
      w.put(*id);
    } else {
      const std::string& name = std::get<std::string>(op.identifier);
      w.put(static_cast<std::uint8_t>(XnnIdentifierTag::kString));
      w.put(static_cast<std::uint32_t>(name.size()));
      w.put_bytes(name.data(), name.size());
    }
    w.put(static_cast<std::uint8_t>(op.operands.size()));
    for (std::uint32_t slot : op.operands) w.put(slot);
    w.put_tensor(op.output);
    w.put(static_cast<std::uint32_t>(op.ints.size() * 4 + op.floats.size() * 4));
    for (std::uint32_t v : op.ints) w.put(v);
    w.put_bytes(op.floats.data(), op.floats.size() * sizeof(float));
  }
  for (std::uint32_t slot : program.outputs) w.put(slot);
  return w.take();
}

}  // namespace glassbox::backends::xnnpack
