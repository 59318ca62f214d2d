// Dynamic values end to end in the runtime: Program::load's checks of the
// schema's `dynamic` flag, Method::load's writable sizes, a kernel that
// resizes its output at each execution and one after it (top_k) that reads
// the actual sizes. Programs are written with the FlatBuffers builder.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"
#include "program_generated.h"

namespace glassbox::runtime {
namespace {

using Sizes = std::vector<std::int64_t>;

struct ValueSpec {
  executorch_flatbuffer::ScalarType dtype;
  Sizes sizes;
  std::int64_t offset;  // arena offset, or -1 with constant 0
  bool dynamic;
};

struct CallSpec {
  const char* op;
  std::vector<std::int32_t> inputs;
  std::vector<std::int32_t> outputs;
  std::int64_t k = -1;  // top_k's attribute when >= 0
  // Other attributes: Int ones, and Ints ones.
  std::vector<std::pair<std::string, std::int64_t>> ints = {};
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> lists = {};
};

// A one-method program; a value with offset -1 is constant 0 (8 zero bytes
// per element).
std::vector<std::uint8_t> build(const std::vector<ValueSpec>& values,
                                const std::vector<CallSpec>& calls,
                                const std::vector<std::int32_t>& inputs,
                                const std::vector<std::int32_t>& outputs,
                                std::uint64_t arena_bytes) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<gbx::Tensor>> tensors;
  std::vector<flatbuffers::Offset<gbx::Buffer>> constants;
  for (std::size_t v = 0; v < values.size(); ++v) {
    const ValueSpec& s = values[v];
    const std::string name = "v" + std::to_string(v);
    if (s.offset < 0) {
      std::int64_t n = 1;
      for (std::int64_t d : s.sizes) n *= d;
      fbb.ForceVectorAlignment(static_cast<std::size_t>(n * 8), 1, 16);
      std::vector<std::uint8_t> zeros(static_cast<std::size_t>(n * 8));
      constants.push_back(gbx::CreateBufferDirect(fbb, &zeros));
    }
    tensors.push_back(gbx::CreateTensorDirect(fbb, name.c_str(), s.dtype, &s.sizes,
                                              s.offset < 0 ? 0 : -1, s.offset, s.dynamic));
  }
  std::vector<flatbuffers::Offset<gbx::Instruction>> instructions;
  for (const CallSpec& c : calls) {
    std::vector<flatbuffers::Offset<gbx::Attribute>> attrs;
    if (c.k >= 0)
      attrs.push_back(gbx::CreateAttributeDirect(fbb, "k", gbx::AttributeKind::Int, c.k));
    for (const auto& [name, value] : c.ints) {
      attrs.push_back(
          gbx::CreateAttributeDirect(fbb, name.c_str(), gbx::AttributeKind::Int, value));
    }
    for (const auto& [name, list] : c.lists) {
      attrs.push_back(
          gbx::CreateAttributeDirect(fbb, name.c_str(), gbx::AttributeKind::Ints, 0, 0.0, &list));
    }
    auto call = gbx::CreateKernelCallDirect(fbb, c.op, &c.inputs, &c.outputs, &attrs);
    instructions.push_back(
        gbx::CreateInstructionDirect(fbb, gbx::InstructionArgs::KernelCall, call.Union(), 1, c.op));
  }
  auto method = gbx::CreateMethodDirect(fbb, "forward", &tensors, &inputs, &outputs, &instructions,
                                        nullptr, arena_bytes);
  std::vector<flatbuffers::Offset<gbx::Method>> methods{method};
  fbb.Finish(gbx::CreateProgramDirect(fbb, 1, &methods, &constants, ""), "GBX0");
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

// A program and its "forward" method, which borrows the program and the
// allocators: they live here, beside it.
class LoadedMethodTest : public ::testing::Test {
 protected:
  void load(const std::vector<std::uint8_t>& bytes) {
    bytes_ = bytes;
    Result<Program> p = Program::load(bytes_, &diag);
    ASSERT_TRUE(p.ok()) << diag.message;
    program_.emplace(std::move(p).value());
    Result<Method> m = Method::load(*program_, "forward", &memory_, &temp_, nullptr, &diag);
    ASSERT_TRUE(m.ok()) << diag.message;
    loaded_.emplace(std::move(m).value());
    method = &*loaded_;
  }

  Diagnostics diag;
  Method* method = nullptr;

 private:
  std::vector<std::uint8_t> bytes_;
  std::optional<Program> program_;
  MemoryAllocator memory_, temp_;
  std::optional<Method> loaded_;
};

constexpr auto kFloat = executorch_flatbuffer::ScalarType::FLOAT;
constexpr auto kLong = executorch_flatbuffer::ScalarType::LONG;

// x float[8] -> non_zero -> nz long[1, <=8] -> top_k(k=2 on axis -1) ->
// values, indices long[1, <=2] (dynamic as their input): top_k reads
// nz's actual length.
std::vector<std::uint8_t> non_zero_program() {
  return build({{kFloat, {8}, 0, false},
                {kLong, {1, 8}, 64, true},
                {kLong, {1, 2}, 192, true},
                {kLong, {1, 2}, 256, true}},
               {{"non_zero", {0}, {1}}, {"top_k", {1}, {2, 3}, 2}}, {0}, {1, 2}, 320);
}

TEST_F(LoadedMethodTest, TheKernelSizesTheValueAtEachExecution) {
  ASSERT_NO_FATAL_FAILURE(load(non_zero_program()));
  const Tensor& nz = method->output(0);
  ASSERT_TRUE(nz.is_dynamic());
  EXPECT_EQ(Sizes(nz.sizes.begin(), nz.sizes.end()), (Sizes{1, 8}));  // the bound until run

  const std::vector<float> first = {0, 3, 0, 0, 5, 0, 7, 0};
  ASSERT_EQ(method->set_input(0, first.data(), sizeof(float) * 8), Error::kOk);
  ASSERT_EQ(method->execute(&diag), Error::kOk) << diag.message;
  EXPECT_EQ(Sizes(nz.sizes.begin(), nz.sizes.end()), (Sizes{1, 3}));
  EXPECT_EQ(nz.nbytes, 3 * sizeof(std::int64_t));
  const auto* coords = static_cast<const std::int64_t*>(nz.data);
  EXPECT_EQ(Sizes(coords, coords + 3), (Sizes{1, 4, 6}));
  const auto* top = static_cast<const std::int64_t*>(method->output(1).data);
  EXPECT_EQ(Sizes(top, top + 2), (Sizes{6, 4}));

  const std::vector<float> second = {1, 0, 0, 0, 0, 0, 0, 2};
  ASSERT_EQ(method->set_input(0, second.data(), sizeof(float) * 8), Error::kOk);
  ASSERT_EQ(method->execute(&diag), Error::kOk) << diag.message;
  EXPECT_EQ(Sizes(nz.sizes.begin(), nz.sizes.end()), (Sizes{1, 2}));
  EXPECT_EQ(Sizes(coords, coords + 2), (Sizes{0, 7}));
  // top_k ranked the 2 coordinates found, not the bound's 8, where the
  // first run's 6 is still stored after them and would have come second.
  EXPECT_EQ(coords[2], 6);
  EXPECT_EQ(Sizes(top, top + 2), (Sizes{7, 0}));

  // Fewer than k found: top_k refuses rather than read past the data.
  const std::vector<float> third = {0, 0, 0, 4, 0, 0, 0, 0};
  ASSERT_EQ(method->set_input(0, third.data(), sizeof(float) * 8), Error::kOk);
  EXPECT_NE(method->execute(&diag), Error::kOk);
}

// x float[6] -> non_zero -> nz long[1, <=6] -> transpose -> t long[<=6, 1]
// -> cast -> f float[<=6, 1] -> add(f, f) -> a float[<=6, 1] -> reshape
// [-1] -> r float[<=6] -> concat(r, r) -> c float[<=12]: ops sized in
// prepare, which the method runs again at each execution, follow the data.
std::vector<std::uint8_t> follow_program() {
  using Ints = std::vector<std::int64_t>;
  return build({{kFloat, {6}, 0, false},
                {kLong, {1, 6}, 64, true},
                {kLong, {6, 1}, 128, true},
                {kFloat, {6, 1}, 192, true},
                {kFloat, {6, 1}, 256, true},
                {kFloat, {6}, 320, true},
                {kFloat, {12}, 384, true}},
               {{"non_zero", {0}, {1}},
                {"transpose", {1}, {2}, -1, {}, {{"perm", Ints{1, 0}}}},
                {"cast", {2}, {3}, -1, {{"dtype", 6}}},
                {"add", {3, 3}, {4}},
                {"reshape", {4}, {5}, -1, {}, {{"shape", Ints{-1}}}},
                {"concat", {5, 5}, {6}, -1, {{"axis", 0}}}},
               {0}, {6}, 448);
}

TEST_F(LoadedMethodTest, OpsAfterADynamicValueFollowItsSizes) {
  ASSERT_NO_FATAL_FAILURE(load(follow_program()));
  const Tensor& c = method->output(0);
  for (const auto& [input, want] : std::vector<std::pair<std::vector<float>, std::vector<float>>>{
           {{0, 1, 0, 1, 1, 0}, {2, 6, 8, 2, 6, 8}},  // nonzero at 1, 3, 4: doubled, twice
           {{1, 0, 0, 0, 0, 0}, {0, 0}},
           {{0, 0, 0, 0, 0, 0}, {}},
           {{1, 1, 1, 1, 1, 1}, {0, 2, 4, 6, 8, 10, 0, 2, 4, 6, 8, 10}}}) {
    ASSERT_EQ(method->set_input(0, input.data(), sizeof(float) * 6), Error::kOk);
    ASSERT_EQ(method->execute(&diag), Error::kOk) << diag.message;
    ASSERT_EQ(Sizes(c.sizes.begin(), c.sizes.end()), Sizes{static_cast<std::int64_t>(want.size())});
    const auto* got = static_cast<const float*>(c.data);
    EXPECT_EQ(std::vector<float>(got, got + want.size()), want);
  }
}

TEST(DynamicShapesTest, AFixedShapeAfterADynamicValueIsRefusedAtLoad) {
  // reshape to a fixed [3] holds only when non_zero finds exactly 3.
  using Ints = std::vector<std::int64_t>;
  const std::vector<std::uint8_t> bytes = build(
      {{kFloat, {6}, 0, false}, {kLong, {1, 6}, 64, true}, {kLong, {3}, 128, true}},
      {{"non_zero", {0}, {1}}, {"reshape", {1}, {2}, -1, {}, {{"shape", Ints{3}}}}}, {0}, {2}, 192);
  Diagnostics diag;
  Result<Program> program = Program::load(bytes, &diag);
  ASSERT_TRUE(program.ok()) << diag.message;
  MemoryAllocator memory, temp;
  // Loads: at the bound [1, 6] the reshape to [3] is already wrong.
  EXPECT_FALSE(Method::load(*program, "forward", &memory, &temp, nullptr, &diag).ok());
  EXPECT_NE(std::string(diag.message).find("reshape"), std::string::npos) << diag.message;
}

TEST(DynamicShapesTest, ResizeStaysWithinTheBound) {
  std::int64_t storage[2] = {2, 5};
  const std::int64_t bound[2] = {2, 5};
  Tensor t;
  t.dtype = ScalarType::kLong;
  t.bound = bound;
  t.dynamic_sizes = storage;
  t.sizes = Span<const std::int64_t>(storage, 2);
  const std::int64_t ok[] = {2, 0}, too_big[] = {2, 6}, wrong_rank[] = {10};
  EXPECT_EQ(t.resize(ok), Error::kOk);
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.nbytes, 0u);
  EXPECT_EQ(t.resize(too_big), Error::kInvalidArgument);
  EXPECT_EQ(t.resize(wrong_rank), Error::kInvalidArgument);
  Tensor fixed;
  EXPECT_EQ(fixed.resize(ok), Error::kInvalidArgument);
}

TEST(DynamicShapesTest, LoadRefusesADynamicConstantOrInput) {
  Diagnostics diag;
  // A constant marked dynamic.
  std::vector<std::uint8_t> bytes =
      build({{kFloat, {8}, 0, false}, {kLong, {1, 8}, 64, false}, {kLong, {2}, -1, true}},
            {{"non_zero", {0}, {1}}}, {0}, {1}, 192);
  EXPECT_FALSE(Program::load(bytes, &diag).ok());
  EXPECT_NE(std::string(diag.message).find("constant cannot be dynamic"), std::string::npos)
      << diag.message;
  // An input marked dynamic.
  bytes = build({{kFloat, {8}, 0, true}, {kLong, {1, 8}, 64, true}}, {{"non_zero", {0}, {1}}}, {0},
                {1}, 192);
  EXPECT_FALSE(Program::load(bytes, &diag).ok());
  EXPECT_NE(std::string(diag.message).find("input 0 is dynamic"), std::string::npos)
      << diag.message;
  // non_zero writing a static output: refused at Method::load.
  bytes = build({{kFloat, {8}, 0, false}, {kLong, {1, 8}, 64, false}}, {{"non_zero", {0}, {1}}},
                {0}, {1}, 192);
  Result<Program> program = Program::load(bytes, &diag);
  ASSERT_TRUE(program.ok()) << diag.message;
  MemoryAllocator memory, temp;
  EXPECT_FALSE(Method::load(*program, "forward", &memory, &temp, nullptr, &diag).ok());
  EXPECT_NE(std::string(diag.message).find("must be dynamic"), std::string::npos) << diag.message;
  // top_k above the kernels' rank (a program may have 16 dims): refused,
  // not run with its sizes in too short an array.
  const Sizes rank7 = {1, 1, 1, 1, 1, 1, 2}, rank7_k1 = {1, 1, 1, 1, 1, 1, 1};
  bytes = build(
      {{kFloat, rank7, 0, false}, {kFloat, rank7_k1, 64, false}, {kLong, rank7_k1, 128, false}},
      {{"top_k", {0}, {1, 2}, 1}}, {0}, {1}, 192);
  Result<Program> deep = Program::load(bytes, &diag);
  ASSERT_TRUE(deep.ok()) << diag.message;
  EXPECT_FALSE(Method::load(*deep, "forward", &memory, &temp, nullptr, &diag).ok());
  EXPECT_NE(std::string(diag.message).find("rank 7"), std::string::npos) << diag.message;
}

}  // namespace
}  // namespace glassbox::runtime
