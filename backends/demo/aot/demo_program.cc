#include "backends/demo/aot/demo_program.h"

#include <cstring>
#include <string>

namespace glassbox::backends::demo {
namespace {

bool is_conv(DemoOpKind kind) { return kind == DemoOpKind::kConv || kind == DemoOpKind::kConvRelu; }

class Writer {
 public:
  void u8(std::uint8_t v) { bytes_.push_back(v); }
  void u32(std::uint32_t v) { little_endian(v, sizeof v); }
  void i64(std::int64_t v) { little_endian(static_cast<std::uint64_t>(v), sizeof v); }
  void f32(float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u32(bits);
  }
  void raw(const void* data, std::size_t size) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + size);
  }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  void little_endian(std::uint64_t v, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i)
      bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  std::vector<std::uint8_t> bytes_;
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  bool u8(std::uint8_t* v) {
    std::uint64_t x = 0;
    if (!little_endian(1, &x)) return false;
    *v = static_cast<std::uint8_t>(x);
    return true;
  }
  bool u32(std::uint32_t* v) {
    std::uint64_t x = 0;
    if (!little_endian(4, &x)) return false;
    *v = static_cast<std::uint32_t>(x);
    return true;
  }
  bool i64(std::int64_t* v) {
    std::uint64_t x = 0;
    if (!little_endian(8, &x)) return false;
    *v = static_cast<std::int64_t>(x);
    return true;
  }
  bool f32(float* v) {
    std::uint32_t bits = 0;
    if (!u32(&bits)) return false;
    std::memcpy(v, &bits, sizeof bits);
    return true;
  }
  bool raw(std::size_t size, std::span<const std::uint8_t>* out) {
    if (bytes_.size() - offset_ < size) return false;
    *out = bytes_.subspan(offset_, size);
    offset_ += size;
    return true;
  }
  std::size_t offset() const { return offset_; }
  std::size_t remaining() const { return bytes_.size() - offset_; }

 private:
  bool little_endian(std::size_t size, std::uint64_t* v) {
    if (bytes_.size() - offset_ < size) return false;
    for (std::size_t i = 0; i < size; ++i) *v |= std::uint64_t{bytes_[offset_ + i]} << (8 * i);
    offset_ += size;
    return true;
  }
  std::span<const std::uint8_t> bytes_;
  std::size_t offset_ = 0;
};

Status corrupt(const Reader& r, const std::string& problem) {
  return Status(Error::kCorruptData,
                "demo program: " + problem + " at byte " + std::to_string(r.offset()));
}

}  // namespace

std::vector<std::uint8_t> encode_demo_program(const DemoProgram& program) {
  Writer w;
  w.raw(kDemoMagic, sizeof kDemoMagic);
  w.u32(kDemoFormatVersion);
  w.u32(static_cast<std::uint32_t>(program.ops.size()));
  w.u32(program.input_count);
  w.u32(static_cast<std::uint32_t>(program.output_slots.size()));
  for (const DemoOp& op : program.ops) {
    w.u8(static_cast<std::uint8_t>(op.kind));
    if (const auto* i = std::get_if<std::int64_t>(&op.identifier)) {
      w.u8(static_cast<std::uint8_t>(DemoIdentifierTag::kInt));
      w.i64(*i);
    } else {
      const std::string& s = std::get<std::string>(op.identifier);
      w.u8(static_cast<std::uint8_t>(DemoIdentifierTag::kString));
      w.u32(static_cast<std::uint32_t>(s.size()));
      w.raw(s.data(), s.size());
    }
    w.u8(static_cast<std::uint8_t>(op.operand_slots.size()));
    for (std::uint32_t slot : op.operand_slots) w.u32(slot);
    if (!is_conv(op.kind)) continue;
    const DemoConvParams& c = op.conv;
    for (const auto* pair : {&c.stride, &c.padding, &c.dilation}) {
      w.i64((*pair)[0]);
      w.i64((*pair)[1]);
    }
    w.i64(c.groups);
    for (std::int64_t d : c.weight_shape) w.i64(d);
    for (float f : c.weight) w.f32(f);
    w.u8(c.bias.empty() ? 0 : 1);
    for (float f : c.bias) w.f32(f);
  }
  for (std::uint32_t slot : program.output_slots) w.u32(slot);
  return w.take();
}

StatusOr<DemoProgram> decode_demo_program(std::span<const std::uint8_t> bytes) {
  Reader r(bytes);
  std::span<const std::uint8_t> magic;
  if (!r.raw(sizeof kDemoMagic, &magic) ||
      std::memcmp(magic.data(), kDemoMagic, sizeof kDemoMagic) != 0) {
    return corrupt(r, "missing magic \"GBDM\"");
  }
  std::uint32_t version = 0;
  std::uint32_t op_count = 0;
  std::uint32_t output_count = 0;
  DemoProgram program;
  if (!r.u32(&version)) return corrupt(r, "truncated header");
  if (version != kDemoFormatVersion) {
    return Status(Error::kVersionMismatch, "demo program: version " + std::to_string(version) +
                                               ", this reader reads " +
                                               std::to_string(kDemoFormatVersion));
  }
  if (!r.u32(&op_count) || !r.u32(&program.input_count) || !r.u32(&output_count)) {
    return corrupt(r, "truncated header");
  }
  // Every op takes at least 3 bytes, so a count the buffer cannot hold is
  // rejected before anything is reserved for it.
  static constexpr std::size_t kMinOpSize = 3;
  if (op_count > r.remaining() / kMinOpSize) return corrupt(r, "op count larger than the buffer");
  for (std::uint32_t i = 0; i < op_count; ++i) {
    DemoOp op;
    std::uint8_t kind = 0;
    std::uint8_t tag = 0;
    if (!r.u8(&kind) || !r.u8(&tag)) return corrupt(r, "truncated op");
    if (kind < static_cast<std::uint8_t>(DemoOpKind::kConvRelu) ||
        kind > static_cast<std::uint8_t>(DemoOpKind::kDiv)) {
      return corrupt(r, "unknown op kind " + std::to_string(kind));
    }
    op.kind = static_cast<DemoOpKind>(kind);
    if (tag == static_cast<std::uint8_t>(DemoIdentifierTag::kInt)) {
      std::int64_t id = 0;
      if (!r.i64(&id)) return corrupt(r, "truncated identifier");
      op.identifier = id;
    } else if (tag == static_cast<std::uint8_t>(DemoIdentifierTag::kString)) {
      std::uint32_t length = 0;
      std::span<const std::uint8_t> text;
      if (!r.u32(&length) || !r.raw(length, &text)) return corrupt(r, "truncated identifier");
      op.identifier = std::string(text.begin(), text.end());
    } else {
      return corrupt(r, "unknown identifier tag " + std::to_string(tag));
    }
    std::uint8_t operand_count = 0;
    if (!r.u8(&operand_count)) return corrupt(r, "truncated op");
    const std::uint8_t expected_operands = op.kind == DemoOpKind::kDiv ? 2 : 1;
    if (operand_count != expected_operands) return corrupt(r, "wrong operand count");
    const std::uint64_t first_unwritten = std::uint64_t{program.input_count} + i;
    for (std::uint8_t k = 0; k < operand_count; ++k) {
      std::uint32_t slot = 0;
      if (!r.u32(&slot)) return corrupt(r, "truncated operands");
      if (slot >= first_unwritten)
        return corrupt(r, "operand reads slot " + std::to_string(slot) + " before it is written");
      op.operand_slots.push_back(slot);
    }
    if (is_conv(op.kind)) {
      DemoConvParams& c = op.conv;
      bool ok = true;
      for (auto* pair : {&c.stride, &c.padding, &c.dilation})
        ok = ok && r.i64(&(*pair)[0]) && r.i64(&(*pair)[1]);
      ok = ok && r.i64(&c.groups);
      for (std::int64_t& d : c.weight_shape) ok = ok && r.i64(&d);
      if (!ok) return corrupt(r, "truncated conv parameters");
      std::uint64_t weight_count = 1;
      for (std::int64_t d : c.weight_shape) {
        if (d <= 0 || static_cast<std::uint64_t>(d) > r.remaining())
          return corrupt(r, "bad weight shape");
        weight_count *= static_cast<std::uint64_t>(d);
        if (weight_count > r.remaining() / sizeof(float))
          return corrupt(r, "weights larger than the buffer");
      }
      c.weight.resize(weight_count);
      for (float& f : c.weight) r.f32(&f);
      std::uint8_t has_bias = 0;
      if (!r.u8(&has_bias) || has_bias > 1) return corrupt(r, "bad bias flag");
      if (has_bias) {
        c.bias.resize(static_cast<std::size_t>(c.weight_shape[0]));
        for (float& f : c.bias) {
          if (!r.f32(&f)) return corrupt(r, "truncated bias");
        }
      }
    }
    program.ops.push_back(std::move(op));
  }
  const std::uint64_t slot_count = std::uint64_t{program.input_count} + op_count;
  if (output_count > r.remaining() / sizeof(std::uint32_t)) return corrupt(r, "truncated outputs");
  for (std::uint32_t i = 0; i < output_count; ++i) {
    std::uint32_t slot = 0;
    r.u32(&slot);
    if (slot >= slot_count)
      return corrupt(r, "output slot " + std::to_string(slot) + " out of range");
    program.output_slots.push_back(slot);
  }
  if (r.remaining() != 0) return corrupt(r, "trailing bytes");
  return program;
}

}  // namespace glassbox::backends::demo
