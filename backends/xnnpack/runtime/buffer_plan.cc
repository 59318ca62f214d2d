#include "backends/xnnpack/runtime/buffer_plan.h"

namespace glassbox::backends::xnnpack {

ErrorInfo plan_buffers(const ParsedProgram& program, std::size_t slack,
                       runtime::MemoryAllocator* memory, BufferPlan* plan,
                       const InPlaceSlices* slices) {
  const std::uint32_t num_slots = program.num_slots();
  const std::uint32_t first_op = program.first_op_slot();
  // The index of the last operator reading each slot; num_ops: for good.
  const std::uint32_t forever = program.num_ops;
  auto* last_use = memory->allocate_array<std::uint32_t>(num_slots);
  auto* busy_until = memory->allocate_array<std::uint32_t>(num_slots);  // per buffer
  auto* placed = memory->allocate_array<bool>(num_slots);
  plan->buffer_of = memory->allocate_array<std::uint32_t>(num_slots);
  plan->bytes = memory->allocate_array<std::size_t>(num_slots);
  plan->num_buffers = 0;
  if (last_use == nullptr || busy_until == nullptr || placed == nullptr ||
      plan->buffer_of == nullptr || plan->bytes == nullptr) {
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory planning tensors");
  }
  for (std::uint32_t s = 0; s < num_slots; ++s) {
    const bool constant = s >= program.num_inputs && s < first_op;
    last_use[s] = constant ? forever : s < first_op ? 0 : s - first_op;
  }
  for (std::uint32_t i = 0; i < program.num_ops; ++i) {
    const ParsedOp& op = program.ops[i];
    for (std::uint32_t k = 0; k < op.num_operands; ++k) {
      std::uint32_t& last = last_use[op.operands[k]];
      if (last != forever && last < i) last = i;
    }
  }
  for (std::uint32_t k = 0; k < program.num_outputs; ++k) last_use[program.outputs[k]] = forever;

  const auto bytes_of = [&](std::uint32_t s) {
    return static_cast<std::size_t>(program.slots[s].numel) * program.slots[s].element_size();
  };
  const auto place = [&](std::uint32_t s, std::uint32_t b) {
    if (b == plan->num_buffers) plan->bytes[plan->num_buffers++] = 0;
    if (plan->bytes[b] < bytes_of(s)) plan->bytes[b] = bytes_of(s);
    plan->buffer_of[s] = b;
    busy_until[b] = last_use[s];
    placed[s] = true;
  };
  for (std::uint32_t s = 0; s < first_op; ++s) place(s, plan->num_buffers);
  for (std::uint32_t i = 0; i < program.num_ops; ++i) {
    // An output written in place goes where its concatenation goes, which
    // is placed now if it is the first of them.
    std::uint32_t slot = first_op + i;
    const std::uint32_t concat = slices != nullptr ? slices->into[slot] : kNotInPlace;
    if (concat != kNotInPlace) {
      if (placed[concat]) {
        plan->buffer_of[slot] = plan->buffer_of[concat];
        continue;
      }
      slot = concat;
    } else if (placed[slot]) {
      continue;  // a concatenation placed with its first input
    }
    // Free buffers: the smallest that fits, else the largest (grown).
    const std::size_t need = bytes_of(slot);
    std::uint32_t fit = plan->num_buffers, largest = plan->num_buffers;
    for (std::uint32_t b = 0; b < plan->num_buffers; ++b) {
      if (busy_until[b] >= i) continue;
      if (plan->bytes[b] >= need &&
          (fit == plan->num_buffers || plan->bytes[b] < plan->bytes[fit])) {
        fit = b;
      }
      if (largest == plan->num_buffers || plan->bytes[b] > plan->bytes[largest]) largest = b;
    }
    place(slot, fit != plan->num_buffers ? fit : largest);
    if (slot != first_op + i) plan->buffer_of[first_op + i] = plan->buffer_of[slot];
  }
  for (std::uint32_t b = 0; b < plan->num_buffers; ++b) plan->bytes[b] += slack;
  return kOk;
}

}  // namespace glassbox::backends::xnnpack
