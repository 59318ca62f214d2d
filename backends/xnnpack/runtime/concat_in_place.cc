#include "backends/xnnpack/runtime/concat_in_place.h"

namespace glassbox::backends::xnnpack {
namespace {

// A 4-D NHWC slot: channels are the last of its bytes' order.
bool nhwc(const SlotDesc& s) { return s.rank == 4 && s.layout == XnnLayout::kNhwc; }

// Whether op `concat` concatenates NHWC slots over channels (its axis is
// over the bytes' order: 3 is C).
bool channel_concat(const ParsedProgram& program, std::uint32_t concat) {
  const ParsedOp& op = program.ops[concat];
  return op.kind == XnnOpKind::kConcatenate && op.ints[0] == 3 &&
         nhwc(program.slots[program.first_op_slot() + concat]);
}

}  // namespace

ErrorInfo plan_in_place_slices(const ParsedProgram& program, const bool* perturbed,
                               runtime::MemoryAllocator* memory, InPlaceSlices* slices) {
  const std::uint32_t num_slots = program.num_slots();
  const std::uint32_t first_op = program.first_op_slot();
  slices->into = memory->allocate_array<std::uint32_t>(num_slots);
  slices->first_channel = memory->allocate_array<std::uint32_t>(num_slots);
  // Per slot: how many operands read it (a delegate output counts as one
  // more), and the last operator that did.
  auto* readers = memory->allocate_array<std::uint32_t>(num_slots);
  auto* reader = memory->allocate_array<std::uint32_t>(num_slots);
  if (slices->into == nullptr || slices->first_channel == nullptr || readers == nullptr ||
      reader == nullptr) {
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory planning tensors");
  }
  for (std::uint32_t s = 0; s < num_slots; ++s) slices->into[s] = kNotInPlace;
  for (std::uint32_t i = 0; i < program.num_ops; ++i) {
    const ParsedOp& op = program.ops[i];
    for (std::uint32_t k = 0; k < op.num_operands; ++k) {
      ++readers[op.operands[k]];
      reader[op.operands[k]] = i;
    }
  }
  for (std::uint32_t k = 0; k < program.num_outputs; ++k) ++readers[program.outputs[k]];

  for (std::uint32_t i = 0; i < program.num_ops; ++i) {
    if (!channel_concat(program, i)) continue;
    const ParsedOp& concat = program.ops[i];
    std::uint32_t channel = 0;
    for (std::uint32_t k = 0; k < concat.num_operands; ++k) {
      const std::uint32_t s = concat.operands[k];
      const std::uint32_t producer = s - first_op;  // meaningful when s >= first_op
      if (s >= first_op && readers[s] == 1 && reader[s] == i && nhwc(program.slots[s]) &&
          program.ops[producer].kind == XnnOpKind::kConvolution && !perturbed[producer]) {
        slices->into[s] = first_op + i;
        slices->first_channel[s] = channel;
      }
      channel += static_cast<std::uint32_t>(program.slots[s].dims[1]);
    }
  }
  return kOk;
}

std::int64_t pixel_stride(const ParsedProgram& program, const InPlaceSlices& slices,
                          std::uint32_t slot) {
  const std::uint32_t owner = slices.in_place(slot) ? slices.into[slot] : slot;
  return program.slots[owner].dims[1];
}

}  // namespace glassbox::backends::xnnpack
