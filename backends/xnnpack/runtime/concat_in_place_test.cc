#include "backends/xnnpack/runtime/concat_in_place.h"

#include <gtest/gtest.h>

#include <vector>

#include "backends/xnnpack/runtime/buffer_plan.h"

namespace glassbox::backends::xnnpack {
namespace {

// A fire module (squeezenet) in NHWC: input 0 -> op 0 squeeze conv (slot
// 1) -> op 1 and op 2 expand convs (slots 2, 3) -> op 3 channel concat
// (slot 4) -> op 4 conv (slot 5, the output). Tests change it to break
// one rule at a time.
struct FireModule {
  FireModule() : slots(6), ops(5) {
    const std::int64_t channels[6] = {8, 4, 6, 10, 16, 8};
    for (std::size_t s = 0; s < slots.size(); ++s) {
      slots[s].rank = 4;
      slots[s].layout = XnnLayout::kNhwc;
      const std::int64_t dims[4] = {2, channels[s], 5, 5};
      for (int k = 0; k < 4; ++k) slots[s].dims[k] = dims[k];
      slots[s].numel = 2 * channels[s] * 25;
    }
    for (ParsedOp& op : ops) op.kind = XnnOpKind::kConvolution;
    ops[3].kind = XnnOpKind::kConcatenate;
    ops[3].ints[0] = 3;  // channels, in the bytes' (NHWC) order
    reads = {{0}, {1}, {1}, {2, 3}, {4}};
    outputs = {5};
  }
  const ParsedProgram& program() {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      ops[i].operands = reads[i].data();
      ops[i].num_operands = static_cast<std::uint32_t>(reads[i].size());
    }
    p.num_inputs = 1;
    p.num_constants = 0;
    p.num_ops = static_cast<std::uint32_t>(ops.size());
    p.num_outputs = static_cast<std::uint32_t>(outputs.size());
    p.slots = slots.data();
    p.ops = ops.data();
    p.outputs = outputs.data();
    return p;
  }
  InPlaceSlices plan(runtime::MemoryAllocator* memory) {
    perturbed.resize(ops.size());
    InPlaceSlices slices;
    EXPECT_EQ(plan_in_place_slices(program(), reinterpret_cast<const bool*>(perturbed.data()),
                                   memory, &slices)
                  .code,
              Error::kOk);
    return slices;
  }
  std::vector<SlotDesc> slots;
  std::vector<ParsedOp> ops;
  std::vector<std::vector<std::uint32_t>> reads;
  std::vector<std::uint32_t> outputs;
  std::vector<char> perturbed;  // bool per op
  ParsedProgram p;
};

class ConcatInPlaceTest : public ::testing::Test {
 protected:
  std::vector<std::uint8_t> arena_ = std::vector<std::uint8_t>(1 << 16);
  runtime::MemoryAllocator memory_{{arena_.data(), arena_.size()}};
};

TEST_F(ConcatInPlaceTest, ExpandConvolutionsWriteTheirChannelsOfTheConcatenation) {
  FireModule fire;
  const InPlaceSlices slices = fire.plan(&memory_);
  EXPECT_EQ(slices.into[2], 4u);
  EXPECT_EQ(slices.into[3], 4u);
  EXPECT_EQ(slices.first_channel[2], 0u);
  EXPECT_EQ(slices.first_channel[3], 6u);
  for (std::uint32_t s : {0u, 1u, 4u, 5u}) EXPECT_FALSE(slices.in_place(s)) << "slot " << s;
  EXPECT_EQ(pixel_stride(fire.program(), slices, 2), 16);
  EXPECT_EQ(pixel_stride(fire.program(), slices, 1), 4);

  // The concatenation's buffer is taken when op 1 writes into it: it must
  // not be the squeeze output's (read by op 2 after that), and both expand
  // outputs live in it.
  BufferPlan plan;
  ASSERT_EQ(plan_buffers(fire.program(), 0, &memory_, &plan, &slices).code, Error::kOk);
  EXPECT_EQ(plan.buffer_of[2], plan.buffer_of[4]);
  EXPECT_EQ(plan.buffer_of[3], plan.buffer_of[4]);
  EXPECT_NE(plan.buffer_of[1], plan.buffer_of[4]);
  EXPECT_NE(plan.buffer_of[5], plan.buffer_of[4]);
  EXPECT_GE(plan.bytes[plan.buffer_of[4]], fire.slots[4].numel * sizeof(float));
}

TEST_F(ConcatInPlaceTest, EachRuleKeepsAnOutputInItsOwnBuffer) {
  {
    FireModule fire;  // slot 3 is also read by the last op
    fire.reads[4] = {4, 3};
    const InPlaceSlices slices = fire.plan(&memory_);
    EXPECT_TRUE(slices.in_place(2));
    EXPECT_FALSE(slices.in_place(3));
  }
  {
    FireModule fire;  // slot 2 is a delegate output
    fire.outputs = {5, 2};
    EXPECT_FALSE(fire.plan(&memory_).in_place(2));
  }
  {
    FireModule fire;  // op 2 carries a deliberate fault
    fire.perturbed.assign(fire.ops.size(), 0);
    fire.perturbed[2] = 1;
    InPlaceSlices slices;
    ASSERT_EQ(
        plan_in_place_slices(fire.program(), reinterpret_cast<const bool*>(fire.perturbed.data()),
                             &memory_, &slices)
            .code,
        Error::kOk);
    EXPECT_TRUE(slices.in_place(2));
    EXPECT_FALSE(slices.in_place(3));
  }
  {
    FireModule fire;  // op 1 is not a convolution
    fire.ops[1].kind = XnnOpKind::kMaxPooling;
    EXPECT_FALSE(fire.plan(&memory_).in_place(2));
  }
  {
    FireModule fire;  // a concatenation over another axis
    fire.ops[3].ints[0] = 2;
    const InPlaceSlices slices = fire.plan(&memory_);
    EXPECT_FALSE(slices.in_place(2));
    EXPECT_FALSE(slices.in_place(3));
  }
  {
    FireModule fire;  // in logical (NCHW) order
    for (SlotDesc& s : fire.slots) s.layout = XnnLayout::kLogical;
    EXPECT_FALSE(fire.plan(&memory_).in_place(2));
  }
  {
    FireModule fire;  // one slot concatenated twice
    fire.reads[3] = {2, 2};
    fire.reads[2] = {1};
    EXPECT_FALSE(fire.plan(&memory_).in_place(2));
  }
}

}  // namespace
}  // namespace glassbox::backends::xnnpack
