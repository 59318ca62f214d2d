#include "backends/xnnpack/aot/xnnpack_program.h"

#include <cstring>
#include <string>
#include <type_traits>
#include <variant>

#include "backends/common/blob_writer.h"

namespace glassbox::backends::xnnpack {
namespace {

void put_tensor(BlobWriter& w, const XnnTensorDesc& t) {
  w.put(static_cast<std::uint8_t>(t.dims.size()));
  w.put(static_cast<std::uint8_t>(t.layout));
  for (std::int64_t d : t.dims) w.put(d);
  w.put(static_cast<std::uint8_t>(t.dtype));
  if (t.dtype != XnnDType::kF32) {
    w.put(t.scale);
    w.put(t.zero_point);
  }
}

}  // namespace

std::vector<std::uint8_t> encode_xnn_program(const XnnProgram& program) {
  BlobWriter w;
  w.put_bytes(kXnnMagic, sizeof(kXnnMagic));
  w.put(kXnnFormatMajor);
  w.put(kXnnFormatMinor);
  w.put(static_cast<std::uint32_t>(program.inputs.size()));
  w.put(static_cast<std::uint32_t>(program.outputs.size()));
  w.put(static_cast<std::uint32_t>(program.ops.size()));
  w.put(std::uint32_t{0});
  for (const XnnTensorDesc& t : program.inputs) put_tensor(w, t);
  w.put(static_cast<std::uint32_t>(program.constants.size()));
  for (const XnnConstant& c : program.constants) {
    put_tensor(w, c.desc);
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
    put_tensor(w, op.output);
    w.put(static_cast<std::uint32_t>(op.ints.size() * 4 + op.floats.size() * 4 + op.bytes.size()));
    for (std::uint32_t v : op.ints) w.put(v);
    w.put_bytes(op.floats.data(), op.floats.size() * sizeof(float));
    w.put_bytes(op.bytes.data(), op.bytes.size());
  }
  for (std::uint32_t slot : program.outputs) w.put(slot);
  return w.take();
}

}  // namespace glassbox::backends::xnnpack
