#include "backends/xnnpack/runtime/buffer_plan.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace glassbox::backends::xnnpack {
namespace {

constexpr std::size_t kSlack = 16;

// A program of `sizes` slots (inputs, constants, then one per operator)
// whose operator i reads reads[i].
struct Program {
  Program(std::uint32_t inputs, std::uint32_t constants, std::vector<std::int64_t> sizes,
          std::vector<std::vector<std::uint32_t>> reads_in, std::vector<std::uint32_t> outs)
      : slots(sizes.size()),
        ops(reads_in.size()),
        reads(std::move(reads_in)),
        outputs(std::move(outs)) {
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      slots[s].rank = 1;
      slots[s].dims[0] = sizes[s];
      slots[s].numel = sizes[s];
    }
    for (std::size_t i = 0; i < ops.size(); ++i) {
      ops[i].operands = reads[i].data();
      ops[i].num_operands = static_cast<std::uint32_t>(reads[i].size());
    }
    program.num_inputs = inputs;
    program.num_constants = constants;
    program.num_ops = static_cast<std::uint32_t>(ops.size());
    program.num_outputs = static_cast<std::uint32_t>(outputs.size());
    program.slots = slots.data();
    program.ops = ops.data();
    program.outputs = outputs.data();
  }
  std::vector<SlotDesc> slots;
  std::vector<ParsedOp> ops;
  std::vector<std::vector<std::uint32_t>> reads;
  std::vector<std::uint32_t> outputs;
  ParsedProgram program;
};

// Slot s is live from its definition (inputs and constants: before operator
// 0) to its last read (constants and outputs: for good); no two slots live
// at once may share a buffer, and every buffer holds its largest slot.
void expect_sound(const Program& p, const BufferPlan& plan) {
  const ParsedProgram& prog = p.program;
  const std::uint32_t n = prog.num_slots(), first = prog.first_op_slot();
  const auto end = static_cast<std::int64_t>(prog.num_ops);
  std::vector<std::int64_t> from(n), to(n);
  for (std::uint32_t s = 0; s < n; ++s) {
    from[s] = s < first ? -1 : s - first;
    to[s] = s < prog.num_inputs ? -1 : s < first ? end : from[s];
  }
  for (std::uint32_t i = 0; i < prog.num_ops; ++i) {
    for (std::uint32_t k = 0; k < prog.ops[i].num_operands; ++k) {
      to[prog.ops[i].operands[k]] = std::max<std::int64_t>(to[prog.ops[i].operands[k]], i);
    }
  }
  for (std::uint32_t o : p.outputs) to[o] = end;
  for (std::uint32_t s = 0; s < n; ++s) {
    ASSERT_LT(plan.buffer_of[s], plan.num_buffers);
    EXPECT_GE(plan.bytes[plan.buffer_of[s]], prog.slots[s].numel * sizeof(float) + kSlack);
    for (std::uint32_t t = s + 1; t < n; ++t) {
      // t is defined after s: sharing needs s dead before t is written.
      if (plan.buffer_of[s] == plan.buffer_of[t]) {
        EXPECT_LT(to[s], from[t]) << "slots " << s << " and " << t << " overlap";
      }
    }
  }
}

BufferPlan plan_of(const Program& p, runtime::MemoryAllocator* memory) {
  BufferPlan plan;
  EXPECT_EQ(plan_buffers(p.program, kSlack, memory, &plan).code, Error::kOk);
  return plan;
}

TEST(BufferPlanTest, ChainReusesBuffers) {
  // input 0 -> op 0 (slot 1) -> op 1 (2) -> op 2 (3) -> op 3 (4, output).
  const Program p(1, 0, {100, 200, 50, 300, 10}, {{0}, {1}, {2}, {3}}, {4});
  std::vector<std::uint8_t> arena(1 << 16);
  runtime::MemoryAllocator memory({arena.data(), arena.size()});
  const BufferPlan plan = plan_of(p, &memory);
  expect_sound(p, plan);
  EXPECT_LT(plan.num_buffers, 5u);
  // Ping-pong: op 1 may reuse the input's buffer, op 2 op 0's.
  EXPECT_EQ(plan.buffer_of[2], plan.buffer_of[0]);
  EXPECT_EQ(plan.buffer_of[3], plan.buffer_of[1]);
}

TEST(BufferPlanTest, ResidualConstantsAndOutputsKeepTheirBuffers) {
  // Slots: input 0, constant 1; op 0 (2) reads 0; op 1 (3) reads 2, 1;
  // op 2 (4) reads 3 and the residual 0; op 3 (5) reads 4; outputs 3 and 5.
  const Program p(1, 1, {64, 64, 64, 64, 64, 64}, {{0}, {2, 1}, {3, 0}, {4}}, {3, 5});
  std::vector<std::uint8_t> arena(1 << 16);
  runtime::MemoryAllocator memory({arena.data(), arena.size()});
  const BufferPlan plan = plan_of(p, &memory);
  expect_sound(p, plan);
  std::set<std::uint32_t> others;
  for (std::uint32_t s : {0u, 2u, 3u, 4u, 5u}) others.insert(plan.buffer_of[s]);
  EXPECT_FALSE(others.contains(plan.buffer_of[1])) << "a constant's buffer was reused";
  EXPECT_NE(plan.buffer_of[4], plan.buffer_of[3]) << "an output's buffer was reused";
}

TEST(BufferPlanTest, OutOfMemoryIsAnError) {
  const Program p(1, 0, {8, 8}, {{0}}, {1});
  std::vector<std::uint8_t> arena(8);
  runtime::MemoryAllocator memory({arena.data(), arena.size()});
  BufferPlan plan;
  EXPECT_EQ(plan_buffers(p.program, kSlack, &memory, &plan).code, Error::kMemoryAllocationFailed);
}

}  // namespace
}  // namespace glassbox::backends::xnnpack
