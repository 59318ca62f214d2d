#include "backends/onednn/aot/onednn_program.h"

#include <string>
#include <type_traits>
#include <variant>

namespace glassbox::backends::onednn {
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
  void put_dims(const std::vector<std::int64_t>& dims) {
    put(static_cast<std::uint8_t>(dims.size()));
    for (std::int64_t d : dims) put(d);
  }
  void pad_to(std::size_t alignment) {
    while (bytes_.size() % alignment != 0) bytes_.push_back(0);
  }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
};

}  // namespace

std::vector<std::uint8_t> encode_dnn_program(const DnnProgram& program) {
  Writer w;
  w.put_bytes(kDnnMagic, sizeof(kDnnMagic));
  w.put(kDnnFormatMajor);
  w.put(kDnnFormatMinor);
  w.put(static_cast<std::uint32_t>(program.inputs.size()));
  w.put(static_cast<std::uint32_t>(program.outputs.size()));
  w.put(static_cast<std::uint32_t>(program.constants.size()));
  w.put(static_cast<std::uint32_t>(program.ops.size()));
  for (const auto& dims : program.inputs) w.put_dims(dims);
  for (const DnnConstant& c : program.constants) {
    w.put_dims(c.dims);
    w.pad_to(4);
    w.put_bytes(c.data.data(), c.data.size() * sizeof(float));
  }
  for (const DnnOp& op : program.ops) {
    w.put(static_cast<std::uint8_t>(op.kind));
    if (const auto* id = std::get_if<std::int64_t>(&op.identifier)) {
      w.put(static_cast<std::uint8_t>(DnnIdentifierTag::kInt));
      w.put(*id);
    } else {
      const std::string& name = std::get<std::string>(op.identifier);
      w.put(static_cast<std::uint8_t>(DnnIdentifierTag::kString));
      w.put(static_cast<std::uint32_t>(name.size()));
      w.put_bytes(name.data(), name.size());
    }
    w.put(static_cast<std::uint8_t>(op.operands.size()));
    for (std::uint32_t slot : op.operands) w.put(slot);
    w.put_dims(op.output);
    w.put(static_cast<std::uint8_t>(op.ints.size()));
    for (std::int64_t v : op.ints) w.put(v);
    w.put(static_cast<std::uint8_t>(op.floats.size()));
    for (float v : op.floats) w.put(v);
  }
  for (std::uint32_t slot : program.outputs) w.put(slot);
  return w.take();
}

}  // namespace glassbox::backends::onednn
