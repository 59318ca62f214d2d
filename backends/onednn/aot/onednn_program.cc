#include "backends/onednn/aot/onednn_program.h"

#include <string>
#include <variant>

#include "backends/common/blob_writer.h"

namespace glassbox::backends::onednn {
namespace {

void put_dims(BlobWriter& w, const std::vector<std::int64_t>& dims) {
  w.put(static_cast<std::uint8_t>(dims.size()));
  for (std::int64_t d : dims) w.put(d);
}

void put_quant(BlobWriter& w, const DnnQuant& q) {
  w.put(static_cast<std::uint8_t>(q.type));
  if (dnn_is_quantized(q.type)) {
    w.put(q.scale);
    w.put(q.zero_point);
  }
}

}  // namespace

std::vector<std::uint8_t> encode_dnn_program(const DnnProgram& program) {
  BlobWriter w;
  w.put_bytes(kDnnMagic, sizeof(kDnnMagic));
  w.put(kDnnFormatMajor);
  w.put(kDnnFormatMinor);
  w.put(static_cast<std::uint32_t>(program.inputs.size()));
  w.put(static_cast<std::uint32_t>(program.outputs.size()));
  w.put(static_cast<std::uint32_t>(program.constants.size()));
  w.put(static_cast<std::uint32_t>(program.ops.size()));
  for (std::size_t i = 0; i < program.inputs.size(); ++i) {
    put_dims(w, program.inputs[i]);
    put_quant(w, i < program.input_quants.size() ? program.input_quants[i] : DnnQuant{});
  }
  for (const DnnConstant& c : program.constants) {
    put_dims(w, c.dims);
    put_quant(w, c.quant);
    w.pad_to(4);
    switch (c.quant.type) {
      case DnnDataType::kF32: w.put_bytes(c.data.data(), c.data.size() * sizeof(float)); break;
      case DnnDataType::kS32:
        for (std::int32_t v : c.int_data) w.put(v);
        break;
      case DnnDataType::kS8:
        for (std::int32_t v : c.int_data) w.put(static_cast<std::int8_t>(v));
        break;
      case DnnDataType::kU8:
        for (std::int32_t v : c.int_data) w.put(static_cast<std::uint8_t>(v));
        break;
    }
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
    put_dims(w, op.output);
    put_quant(w, op.quant);
    w.put(static_cast<std::uint8_t>(op.ints.size()));
    for (std::int64_t v : op.ints) w.put(v);
    w.put(static_cast<std::uint8_t>(op.floats.size()));
    for (float v : op.floats) w.put(v);
  }
  for (std::uint32_t slot : program.outputs) w.put(slot);
  return w.take();
}

}  // namespace glassbox::backends::onednn
