// The runtime half against corrupt processed bytes: every truncation is an
// error, bit flips are errors or still-valid programs that init cleanly,
// never a crash (run this under the asan preset too).

#include "backends/xnnpack/runtime/program_parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backends/xnnpack/aot/xnnpack_backend.h"
#include "backends/xnnpack/aot/xnnpack_program.h"
#include "backends/xnnpack/runtime/xnnpack_runtime.h"
#include "backends/xnnpack/testing/xnnpack_test_models.h"

namespace glassbox::backends::xnnpack {
namespace {

// The processed bytes of a whole model (every node is one XNNPACK takes,
// so the graph itself is the partition): MobileNet-like (format 1.0's
// kinds) or decoder-like (1.1's).
std::vector<std::uint8_t> model_blob(bool decoder) {
  StatusOr<aot::Graph> graph = decoder ? build_decoder_like(1, 8) : build_mobile_like(1, 8);
  EXPECT_TRUE(graph.ok()) << graph.message();
  XnnpackBackend backend;
  StatusOr<aot::PreprocessResult> result = backend.preprocess(*graph, {});
  EXPECT_TRUE(result.ok()) << result.message();
  return result->processed_bytes;
}

// Leaves `blob` in GLASSBOX_FUZZ_SEED_DIR (in the build tree, whatever the
// working directory: a run from the source tree once left them there) as a
// seed for program_parser_fuzzer: scripts/fuzz_smoke.sh collects *.xnnblob.
void keep_as_fuzz_seed(const std::string& name, const std::vector<std::uint8_t>& blob) {
  std::ofstream(std::string(GLASSBOX_FUZZ_SEED_DIR) + "/xnnpack_seed_" + name + ".xnnblob",
                std::ios::binary)
      .write(reinterpret_cast<const char*>(blob.data()), static_cast<std::streamsize>(blob.size()));
}

// The loops below pass one allocator, reset before each use: a fresh one
// takes a fresh 1 MiB heap chunk, which ASan maps and unmaps every time
// (milliseconds each: the 24 KB model's truncations took 104 s, now 2.4 s).
Error parse(const std::vector<std::uint8_t>& blob, runtime::MemoryAllocator& memory) {
  memory.reset();
  return parse_xnn_program(Span<const std::uint8_t>(blob.data(), blob.size()), &memory).error();
}

Error parse(const std::vector<std::uint8_t>& blob) {
  runtime::MemoryAllocator memory;
  return parse(blob, memory);
}

// Full init (parse, XNNPACK create + setup), then destroy.
Error init_and_destroy(const std::vector<std::uint8_t>& blob, runtime::MemoryAllocator& memory) {
  memory.reset();
  runtime::BackendInitContext context(&memory, nullptr, "forward");
  XnnpackBackendRuntime& backend = xnnpack_backend_runtime();
  Result<runtime::DelegateHandle*> handle =
      backend.init(context, Span<const std::uint8_t>(blob.data(), blob.size()), {});
  if (!handle.ok()) return handle.error();
  backend.destroy(*handle);
  return Error::kOk;
}

Error init_and_destroy(const std::vector<std::uint8_t>& blob) {
  runtime::MemoryAllocator memory;
  return init_and_destroy(blob, memory);
}

void expect_every_truncation_fails(const std::vector<std::uint8_t>& blob) {
  runtime::MemoryAllocator memory;
  for (std::size_t n = 0; n < blob.size(); ++n) {
    const std::vector<std::uint8_t> cut(blob.begin(),
                                        blob.begin() + static_cast<std::ptrdiff_t>(n));
    ASSERT_NE(parse(cut, memory), Error::kOk) << "length " << n;
  }
}

// Bit flips give errors or programs that init cleanly, some of each.
void expect_bit_flips_fail_cleanly(const std::vector<std::uint8_t>& blob) {
  int rejected = 0, accepted = 0;
  runtime::MemoryAllocator memory;
  // Every byte outside the bulk of the weights, plus a sample inside; a
  // flipped weight only changes a number.
  for (std::size_t i = 0; i < blob.size(); i += i < 4096 ? 1 : 97) {
    for (std::uint8_t bit : {std::uint8_t{0x01}, std::uint8_t{0x10}, std::uint8_t{0x80}}) {
      std::vector<std::uint8_t> flipped = blob;
      flipped[i] ^= bit;
      if (init_and_destroy(flipped, memory) == Error::kOk) {
        ++accepted;
      } else {
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(accepted, 0);
}

class XnnpackProgramParserTest : public ::testing::TestWithParam<bool> {};

INSTANTIATE_TEST_SUITE_P(Models, XnnpackProgramParserTest, ::testing::Bool(),
                         [](const auto& param_info) {
                           return std::string(param_info.param ? "decoder_like" : "mobile_like");
                         });

TEST_P(XnnpackProgramParserTest, AcceptsWhatTheAotHalfWrites) {
  const std::vector<std::uint8_t> blob = model_blob(GetParam());
  runtime::MemoryAllocator memory;
  Result<ParsedProgram*> program =
      parse_xnn_program(Span<const std::uint8_t>(blob.data(), blob.size()), &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  EXPECT_EQ((*program)->num_inputs, 1u);
  EXPECT_EQ((*program)->num_outputs, 1u);
  EXPECT_GT((*program)->num_ops, 10u);
  EXPECT_EQ(init_and_destroy(blob), Error::kOk);
  keep_as_fuzz_seed(GetParam() ? "decoder_like" : "mobile_like", blob);
}

// One operator of each 1.1 kind, hand-built: it parses and inits, and any
// change to its params count, a param, or its output shape is rejected.
struct KindCase {
  const char* name;
  XnnProgram program;
};

XnnTensorDesc nhwc(std::vector<std::int64_t> dims) { return {std::move(dims), XnnLayout::kNhwc}; }
XnnTensorDesc logical(std::vector<std::int64_t> dims) {
  return {std::move(dims), XnnLayout::kLogical};
}

// A program running one operator of `kind` on `inputs` (converted to NHWC
// first with `to_nhwc`; an NHWC result is converted back, as delegate
// outputs are read in logical order).
XnnProgram one_op(std::vector<XnnTensorDesc> inputs, XnnOpKind kind, XnnTensorDesc out,
                  std::vector<std::uint32_t> ints = {}, std::vector<float> floats = {},
                  bool to_nhwc = false) {
  XnnProgram p;
  p.inputs = std::move(inputs);
  const auto num_inputs = static_cast<std::uint32_t>(p.inputs.size());
  const auto add = [&p](XnnOpKind k, std::vector<std::uint32_t> operands, XnnTensorDesc output) {
    XnnOp op;
    op.kind = k;
    op.identifier = static_cast<std::int64_t>(p.ops.size());
    op.operands = std::move(operands);
    op.output = std::move(output);
    p.ops.push_back(std::move(op));
    return static_cast<std::uint32_t>(p.inputs.size() + p.constants.size() + p.ops.size() - 1);
  };
  std::vector<std::uint32_t> operands;
  for (std::uint32_t i = 0; i < num_inputs; ++i) operands.push_back(i);
  if (to_nhwc) operands[0] = add(XnnOpKind::kNchwToNhwc, {0}, nhwc(p.inputs[0].dims));
  std::uint32_t slot = add(kind, operands, out);
  p.ops.back().ints = std::move(ints);
  p.ops.back().floats = std::move(floats);
  if (out.layout == XnnLayout::kNhwc) slot = add(XnnOpKind::kNhwcToNchw, {slot}, logical(out.dims));
  p.outputs = {slot};
  return p;
}

// The operator under test: after the input conversion, if any.
XnnOp& tested(XnnProgram& p) { return p.ops[p.ops[0].kind == XnnOpKind::kNchwToNhwc ? 1 : 0]; }

std::vector<KindCase> kind_cases() {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::vector<std::int64_t> x = {1, 4, 3, 5};
  std::vector<KindCase> cases;
  for (XnnOpKind k :
       {XnnOpKind::kAbs, XnnOpKind::kBankersRounding, XnnOpKind::kCeiling, XnnOpKind::kFloor,
        XnnOpKind::kNegate, XnnOpKind::kSquare, XnnOpKind::kSquareRoot}) {
    cases.push_back({xnn_op_type_name(k), one_op({logical(x)}, k, logical(x))});
  }
  cases.push_back({"elu", one_op({logical(x)}, XnnOpKind::kElu, logical(x), {}, {0.5f})});
  cases.push_back(
      {"leaky_relu", one_op({logical(x)}, XnnOpKind::kLeakyRelu, logical(x), {}, {0.1f})});
  cases.push_back({"maximum", one_op({logical(x), logical({5})}, XnnOpKind::kMaximum, logical(x))});
  cases.push_back({"minimum", one_op({logical(x), logical(x)}, XnnOpKind::kMinimum, logical(x))});
  cases.push_back({"prelu", one_op({logical(x)}, XnnOpKind::kPrelu, logical(x), {5},
                                   {0.1f, 0.2f, 0.3f, 0.4f, 0.5f})});
  cases.push_back(
      {"constant_pad", one_op({logical(x)}, XnnOpKind::kConstantPad, logical({1, 6, 4, 5}),
                              {0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0}, {0.5f})});
  cases.push_back({"depth_to_space", one_op({logical(x)}, XnnOpKind::kDepthToSpace,
                                            nhwc({1, 1, 6, 10}), {2}, {}, true)});
  cases.push_back({"resize_bilinear", one_op({logical(x)}, XnnOpKind::kResizeBilinear,
                                             nhwc({1, 4, 7, 2}), {1}, {}, true)});
  std::vector<float> deconv = {-kInf, kInf};
  deconv.resize(2 + 2 * 2 * 3 * 2 * 2 + 4, 0.25f);  // G=2, GOC=2, 3x2 kernel, GIC=2; bias 4
  // H: stride 2 * (3 - 1) + adjustment 1 + kernel 3 - pads 1 + 1; W: 1 * 4 + 2.
  cases.push_back(
      {"deconvolution", one_op({logical(x)}, XnnOpKind::kDeconvolution, nhwc({1, 4, 6, 6}),
                               {1, 0, 1, 0, 3, 2, 2, 1, 1, 1, 2, 2, 2, 1, 0}, deconv, true)});
  cases.push_back({"mean_last_axis", one_op({logical(x)}, XnnOpKind::kMeanLastAxis,
                                            logical({1, 4, 3}), {}, {-kInf, kInf})});
  cases.push_back(
      {"global_average_pooling_2d", one_op({logical(x)}, XnnOpKind::kGlobalAveragePooling,
                                           logical({1, 4}), {}, {-kInf, kInf}, true)});
  // Format 1.4.
  cases.push_back({"transpose", one_op({logical(x)}, XnnOpKind::kTranspose, logical({1, 5, 4, 3}),
                                       {0, 3, 1, 2, 0, 0})});
  cases.push_back({"batch_matmul", one_op({logical({2, 3, 4}), logical({2, 4, 5})},
                                          XnnOpKind::kBatchMatMul, logical({2, 3, 5}))});
  std::vector<float> layer_norm = {1e-5f};
  layer_norm.resize(1 + 2 * 5, 0.5f);  // scale[5], bias[5]
  cases.push_back(
      {"layer_norm", one_op({logical(x)}, XnnOpKind::kLayerNorm, logical(x), {5}, layer_norm)});
  cases.push_back({"erf", one_op({logical(x)}, XnnOpKind::kErf, logical(x))});
  // Format 1.5: x[:, 1::2, 0::2, 1::3] of [1, 4, 3, 5].
  cases.push_back(
      {"strided_slice", one_op({logical(x)}, XnnOpKind::kStridedSlice, logical({1, 2, 2, 2}),
                               {0, 1, 0, 1, 0, 0, 1, 2, 2, 3, 0, 0})});
  return cases;
}

// The blob of `program` after `edit` changed the operator under test.
std::vector<std::uint8_t> edited(XnnProgram program, const std::function<void(XnnOp*)>& edit) {
  edit(&tested(program));
  return encode_xnn_program(program);
}

TEST(XnnpackProgramParserKindsTest, EachNewKindIsCheckedStrictly) {
  for (const KindCase& c : kind_cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<std::uint8_t> blob = encode_xnn_program(c.program);
    EXPECT_EQ(parse(blob), Error::kOk);
    EXPECT_EQ(init_and_destroy(blob), Error::kOk);
    keep_as_fuzz_seed(c.name, blob);
    // One u32 of params more or fewer.
    EXPECT_EQ(parse(edited(c.program, [](XnnOp* op) { op->ints.push_back(0); })),
              Error::kCorruptData);
    XnnProgram program = c.program;
    const XnnOp& under_test = tested(program);
    if (!under_test.ints.empty() || !under_test.floats.empty()) {
      EXPECT_EQ(parse(edited(c.program,
                             [](XnnOp* op) {
                               if (op->floats.empty()) {
                                 op->ints.pop_back();
                               } else {
                                 op->floats.pop_back();
                               }
                             })),
                Error::kCorruptData);
    }
    // An output shape the operator does not produce: one more channel
    // (and in the conversion back after it, so that the operator's own
    // check must catch it).
    XnnProgram bigger = c.program;
    const auto first = static_cast<std::size_t>(&tested(bigger) - bigger.ops.data());
    for (std::size_t i = first; i < bigger.ops.size(); ++i) bigger.ops[i].output.dims[1] += 1;
    EXPECT_EQ(parse(encode_xnn_program(bigger)), Error::kCorruptData);
    // A parameter far out of range.
    if (!under_test.ints.empty()) {
      EXPECT_EQ(parse(edited(c.program, [](XnnOp* op) { op->ints[0] = kMaxParam + 1; })),
                Error::kCorruptData);
    }
  }
}

TEST(XnnpackProgramParserKindsTest, KindSpecificRulesAreEnforced) {
  const std::vector<std::int64_t> x = {1, 4, 3, 5};
  const auto rejected = [](const XnnProgram& p) { return parse(encode_xnn_program(p)); };
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kElu, logical(x), {}, {0.f})),
            Error::kCorruptData)
      << "elu alpha must be > 0";
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kLeakyRelu, logical(x), {},
                            {std::numeric_limits<float>::quiet_NaN()})),
            Error::kCorruptData)
      << "slope must be finite";
  EXPECT_EQ(
      rejected(one_op({logical(x)}, XnnOpKind::kDepthToSpace, nhwc({1, 4, 3, 5}), {1}, {}, true)),
      Error::kCorruptData)
      << "block size 1";
  EXPECT_EQ(
      rejected(one_op({logical(x)}, XnnOpKind::kDepthToSpace, nhwc({1, 1, 9, 15}), {3}, {}, true)),
      Error::kCorruptData)
      << "channels not divisible by block^2";
  EXPECT_EQ(
      rejected(one_op({logical(x)}, XnnOpKind::kResizeBilinear, nhwc({1, 4, 7, 2}), {2}, {}, true)),
      Error::kCorruptData)
      << "unknown resize flag";
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kResizeBilinear, logical({1, 4, 7, 2}), {0},
                            {}, true)),
            Error::kCorruptData)
      << "resize output must be NHWC";
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kResizeBilinear, nhwc({1, 4, 7, 2}), {0})),
            Error::kCorruptData)
      << "resize input must be NHWC";
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kPrelu, logical(x), {4}, {1, 1, 1, 1})),
            Error::kCorruptData)
      << "prelu channels are the last byte-order dim";
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kConstantPad, logical({1, 4, 3, 5}),
                            {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, {0.f})),
            Error::kCorruptData)
      << "pad beyond the rank";
  EXPECT_EQ(
      rejected(one_op({logical(x)}, XnnOpKind::kMeanLastAxis, logical({1, 4}), {}, {-1.f, 1.f})),
      Error::kCorruptData)
      << "mean drops one axis only";
  std::vector<float> deconv(2 + 4 * 3 * 3 * 4 + 4, 0.f);
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kDeconvolution, nhwc({1, 4, 9, 11}),
                            {0, 0, 0, 0, 3, 3, 2, 2, 1, 1, 1, 4, 4, 2, 0}, deconv, true)),
            Error::kCorruptData)
      << "adjustment must be smaller than the stride";
  // Format 1.4.
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kTranspose, logical({1, 1, 4, 3}),
                            {0, 0, 1, 2, 0, 0})),
            Error::kCorruptData)
      << "transpose perm repeats a dim";
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kTranspose, logical(x), {0, 1, 2, 3, 1, 0})),
            Error::kCorruptData)
      << "transpose perm entries past the rank must be 0";
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kTranspose, nhwc({1, 5, 4, 3}),
                            {0, 3, 1, 2, 0, 0}, {}, true)),
            Error::kCorruptData)
      << "transpose reads and writes logical order";
  EXPECT_EQ(rejected(one_op({logical({2, 3, 4}), logical({2, 5, 5})}, XnnOpKind::kBatchMatMul,
                            logical({2, 3, 5}))),
            Error::kCorruptData)
      << "batch matmul K differs";
  EXPECT_EQ(rejected(one_op({logical({2, 3, 4}), logical({1, 4, 5})}, XnnOpKind::kBatchMatMul,
                            logical({2, 3, 5}))),
            Error::kCorruptData)
      << "batch matmul batch dims differ";
  std::vector<float> layer_norm(1 + 2 * 5, 1.f);
  layer_norm[0] = -1e-5f;
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kLayerNorm, logical(x), {5}, layer_norm)),
            Error::kCorruptData)
      << "layer norm epsilon must be >= 0";
  layer_norm.resize(1 + 2 * 3);
  layer_norm[0] = 1e-5f;
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kLayerNorm, logical(x), {3}, layer_norm)),
            Error::kCorruptData)
      << "layer norm channels are the last dim";
  // Format 1.5.
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kStridedSlice, logical({1, 2, 2, 2}),
                            {0, 1, 0, 2, 0, 0, 1, 2, 2, 3, 0, 0})),
            Error::kCorruptData)
      << "strided slice reads past the last dim (2 + 3 = 5)";
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kStridedSlice, logical({1, 2, 2, 2}),
                            {0, 1, 0, 1, 0, 0, 1, 2, 0, 3, 0, 0})),
            Error::kCorruptData)
      << "strided slice step 0";
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kStridedSlice, logical({1, 2, 2, 2}),
                            {0, 1, 0, 1, 0, 0, 1, 2, 2, 3, 1, 0})),
            Error::kCorruptData)
      << "strided slice step past the rank must be 0";
  EXPECT_EQ(rejected(one_op({logical(x)}, XnnOpKind::kStridedSlice, nhwc({1, 2, 2, 2}),
                            {0, 1, 0, 1, 0, 0, 1, 2, 2, 3, 0, 0}, {}, true)),
            Error::kCorruptData)
      << "strided slice reads and writes logical order";
}

// Format 1.2's constants section: x [2, 3] and y [3] (slots 0, 1), the
// constant c [1, 3] (slot 2), then x + c (slot 3) and max(x + c, y)
// (slot 4). The constant's descriptor ends 2 bytes past a multiple of 4
// (24 header + 18 + 10 input descriptors + 4 count + 18), so its data is
// preceded by 2 padding bytes.
constexpr std::size_t kConstantPaddingOffset = 24 + 18 + 10 + 4 + 18;
constexpr std::size_t kConstantCountOffset = 24 + 18 + 10;

XnnProgram with_constant() {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  XnnProgram p;
  p.inputs = {logical({2, 3}), logical({3})};
  p.constants = {{logical({1, 3}), {0.5f, -1.f, 2.f}}};
  XnnOp add;
  add.kind = XnnOpKind::kAdd;
  add.identifier = std::int64_t{0};
  add.operands = {0, 2};
  add.output = logical({2, 3});
  add.floats = {-kInf, kInf};
  XnnOp max;
  max.kind = XnnOpKind::kMaximum;
  max.identifier = std::int64_t{1};
  max.operands = {3, 1};
  max.output = logical({2, 3});
  p.ops = {add, max};
  p.outputs = {4};
  return p;
}

TEST(XnnpackProgramParserConstantsTest, ConstantSlotsAreReadLikeInputs) {
  const std::vector<std::uint8_t> blob = encode_xnn_program(with_constant());
  runtime::MemoryAllocator memory;
  Result<ParsedProgram*> program =
      parse_xnn_program(Span<const std::uint8_t>(blob.data(), blob.size()), &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  const ParsedProgram& parsed = **program;
  EXPECT_EQ(parsed.num_constants, 1u);
  EXPECT_EQ(parsed.first_op_slot(), 3u);
  EXPECT_EQ(parsed.num_slots(), 5u);
  EXPECT_EQ(parsed.slots[2].numel, 3);
  EXPECT_EQ((parsed.constant_data[0] - blob.data()) % 4, 0) << "data 4-byte aligned in the blob";
  float c[3];
  std::memcpy(c, parsed.constant_data[0], sizeof(c));
  EXPECT_EQ(c[2], 2.f);
  EXPECT_EQ(blob[kConstantPaddingOffset], 0);
  EXPECT_EQ(init_and_destroy(blob), Error::kOk);
}

TEST(XnnpackProgramParserConstantsTest, BadConstantSectionsAreRejected) {
  const std::vector<std::uint8_t> blob = encode_xnn_program(with_constant());
  std::vector<std::uint8_t> padding = blob;
  padding[kConstantPaddingOffset + 1] = 1;
  EXPECT_EQ(parse(padding), Error::kCorruptData) << "non-zero padding";
  for (std::uint32_t count : {2u, kMaxConstants + 1, 0xffffffffu}) {
    std::vector<std::uint8_t> counted = blob;
    std::memcpy(&counted[kConstantCountOffset], &count, 4);
    EXPECT_EQ(parse(counted), Error::kCorruptData) << count << " constants";
  }
  std::vector<std::uint8_t> older = blob;
  older[6] = static_cast<std::uint8_t>(kXnnConstantsMinor - 1);
  EXPECT_NE(parse(older), Error::kOk) << "a 1.1 blob has no constants section";
  XnnProgram as_output = with_constant();
  as_output.outputs = {2};
  EXPECT_EQ(parse(encode_xnn_program(as_output)), Error::kCorruptData) << "a constant as output";
  XnnProgram nhwc_3d = with_constant();
  nhwc_3d.constants[0].desc = {{1, 1, 3}, XnnLayout::kNhwc};
  EXPECT_EQ(parse(encode_xnn_program(nhwc_3d)), Error::kCorruptData) << "NHWC is 4-D only";
  XnnProgram short_data = with_constant();
  short_data.constants[0].data.pop_back();
  EXPECT_EQ(parse(encode_xnn_program(short_data)), Error::kCorruptData)
      << "data shorter than numel";
  XnnProgram forward = with_constant();
  forward.ops[0].operands = {0, 4};
  EXPECT_EQ(parse(encode_xnn_program(forward)), Error::kCorruptData) << "an op slot read early";
}

TEST(XnnpackProgramParserConstantsTest, TruncationsAndBitFlipsFailCleanly) {
  const std::vector<std::uint8_t> blob = encode_xnn_program(with_constant());
  expect_every_truncation_fails(blob);
  expect_bit_flips_fail_cleanly(blob);
}

// Format 1.7: a bidirectional layer of `cell` (2 LSTM, 1 GRU) over x
// [T=3, N=2, I=4], hidden 2, then its Y_h (and the LSTM's Y_c).
XnnProgram recurrent_program(std::uint32_t cell) {
  const bool lstm = cell == 2;
  const std::uint32_t gates = lstm ? 4 : 3, dirs = 2, hidden = 2, input = 4;
  XnnProgram p;
  p.inputs = {logical({3, 2, 4}), logical({2, 2, 2})};
  if (lstm) p.inputs.push_back(logical({2, 2, 2}));
  XnnOp layer;
  layer.kind = XnnOpKind::kRecurrent;
  layer.identifier = std::int64_t{0};
  layer.operands = lstm ? std::vector<std::uint32_t>{0, 1, 2} : std::vector<std::uint32_t>{0, 1};
  layer.output = logical({3, 2, 2, 2});
  // Sigmoid 0, Tanh 1 (kernels::RnnActivationKind), per direction.
  layer.ints = lstm ? std::vector<std::uint32_t>{cell, 2, 0, hidden, input, 0, 0, 1, 1, 0, 1, 1}
                    : std::vector<std::uint32_t>{cell, 2, 0, hidden, input, 0, 0, 1, 0, 1, 0, 0};
  layer.floats.assign(1 + dirs * gates * hidden * (input + hidden) + dirs * 2 * gates * hidden,
                      0.1f);
  layer.floats[0] = 0;  // no clip
  p.ops = {layer};
  const auto y = static_cast<std::uint32_t>(p.inputs.size());
  for (std::uint32_t which = 0; which < (lstm ? 2u : 1u); ++which) {
    XnnOp state;
    state.kind = XnnOpKind::kRecurrentState;
    state.identifier = std::int64_t{0};  // the layer's
    state.operands = {y};
    state.ints = {which};
    state.output = logical({2, 2, 2});
    p.ops.push_back(state);
    p.outputs.push_back(y + 1 + which);
  }
  p.outputs.push_back(y);
  return p;
}

TEST(XnnpackProgramParserRecurrentTest, LayerAndStatesParseInitAndAreCheckedStrictly) {
  for (const std::uint32_t cell : {2u, 1u}) {
    SCOPED_TRACE(cell == 2 ? "lstm" : "gru");
    const XnnProgram good = recurrent_program(cell);
    const std::vector<std::uint8_t> blob = encode_xnn_program(good);
    EXPECT_EQ(parse(blob), Error::kOk);
    EXPECT_EQ(init_and_destroy(blob), Error::kOk);
    keep_as_fuzz_seed(cell == 2 ? "lstm" : "gru", blob);
    expect_every_truncation_fails(blob);
    expect_bit_flips_fail_cleanly(blob);
    const auto rejected = [&](const std::function<void(XnnProgram*)>& edit) {
      XnnProgram p = good;
      edit(&p);
      return parse(encode_xnn_program(p));
    };
    EXPECT_EQ(rejected([](XnnProgram* p) { p->ops[0].floats.pop_back(); }), Error::kCorruptData)
        << "one bias short";
    EXPECT_EQ(rejected([](XnnProgram* p) { p->ops[0].ints[6] = 4; }), Error::kCorruptData)
        << "an activation the runtime lacks (Affine)";
    EXPECT_EQ(rejected([](XnnProgram* p) { p->ops[0].ints[11] = 1; }),
              cell == 2 ? Error::kOk : Error::kCorruptData)
        << "entries past D times the cell's count must be 0";
    EXPECT_EQ(rejected([](XnnProgram* p) { p->ops[0].ints[2] = 2; }), Error::kCorruptData)
        << "layout 2";
    EXPECT_EQ(rejected([](XnnProgram* p) { p->ops[0].floats[0] = -1; }), Error::kCorruptData)
        << "negative clip";
    EXPECT_EQ(rejected([](XnnProgram* p) {
                p->inputs[1] = logical({1, 2, 2});
              }),
              Error::kCorruptData)
        << "initial_h for one direction";
    EXPECT_EQ(rejected([](XnnProgram* p) {
                p->ops[0].output = logical({3, 2, 2, 3});
              }),
              Error::kCorruptData)
        << "Y of another hidden size";
    EXPECT_EQ(rejected([](XnnProgram* p) {
                p->ops[1].output = logical({2, 2, 3});
              }),
              Error::kCorruptData)
        << "Y_h of another hidden size";
    // LSTM: then Y_c twice; GRU: a Y_c of a cell without one.
    EXPECT_EQ(rejected([](XnnProgram* p) { p->ops[1].ints[0] = 1; }), Error::kCorruptData);
    EXPECT_EQ(rejected([](XnnProgram* p) { p->ops[1].operands = {0}; }), Error::kCorruptData)
        << "a state of an input, not of its layer";
  }
}

// Format 1.8: x [1, 2, 4, 5, 5] to NDHWC, a 3x3x3 conv3d (temporal stride
// 2, every pad 1) to [1, 3, 2, 5, 5], then the mean over D, H, W.
XnnProgram conv3d_program() {
  XnnProgram p;
  p.inputs = {logical({1, 2, 4, 5, 5})};
  const auto add = [&p](XnnOpKind kind, std::uint32_t operand, XnnTensorDesc out) {
    XnnOp op;
    op.kind = kind;
    op.identifier = static_cast<std::int64_t>(p.ops.size());
    op.operands = {operand};
    op.output = std::move(out);
    p.ops.push_back(std::move(op));
    return static_cast<std::uint32_t>(p.inputs.size() + p.ops.size() - 1);
  };
  const std::uint32_t x = add(XnnOpKind::kNchwToNhwc, 0, nhwc({1, 2, 4, 5, 5}));
  const std::uint32_t y = add(XnnOpKind::kConvolution3d, x, nhwc({1, 3, 2, 5, 5}));
  p.ops.back().ints = {1, 1, 1, 1, 1, 1, 3, 3, 3, 2, 1, 1, 1, 1, 1, 1, 2, 3};
  p.ops.back().floats.assign(2 + 3 * 3 * 3 * 3 * 2 + 3, 0.25f);
  p.ops.back().floats[0] = 0;  // relu
  p.ops.back().floats[1] = std::numeric_limits<float>::infinity();
  p.ops.back().floats[2] = -1.5f;
  p.outputs = {add(XnnOpKind::kGlobalAveragePooling, y, logical({1, 3}))};
  p.ops.back().floats = {-std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::infinity()};
  return p;
}

TEST(XnnpackProgramParserConv3dTest, ParsesInitsAndChecksEveryField) {
  const XnnProgram good = conv3d_program();
  const std::vector<std::uint8_t> blob = encode_xnn_program(good);
  EXPECT_EQ(parse(blob), Error::kOk);
  EXPECT_EQ(init_and_destroy(blob), Error::kOk);
  keep_as_fuzz_seed("conv3d", blob);
  expect_every_truncation_fails(blob);
  expect_bit_flips_fail_cleanly(blob);
  const auto rejected = [&](const std::function<void(XnnProgram*)>& edit) {
    XnnProgram p = good;
    edit(&p);
    return parse(encode_xnn_program(p));
  };
  XnnOp* conv = nullptr;
  const auto conv_of = [&conv](XnnProgram* p) { return conv = &p->ops[1]; };
  EXPECT_EQ(rejected([&](XnnProgram* p) { conv_of(p)->floats.pop_back(); }), Error::kCorruptData)
      << "one bias short";
  EXPECT_EQ(rejected([&](XnnProgram* p) { conv_of(p)->ints.pop_back(); }), Error::kCorruptData)
      << "17 params";
  for (std::size_t i = 6; i < 18; ++i) {
    EXPECT_EQ(rejected([&](XnnProgram* p) { conv_of(p)->ints[i] = 0; }), Error::kCorruptData)
        << "param " << i << " zero";
  }
  EXPECT_EQ(rejected([&](XnnProgram* p) {
              conv_of(p)->ints[0] = 0;
              conv->ints[1] = 0;
            }),
            Error::kCorruptData)
      << "no temporal padding: D would be 1";
  EXPECT_EQ(rejected([&](XnnProgram* p) { conv_of(p)->ints[9] = 1; }), Error::kCorruptData)
      << "temporal stride 1: D would be 4";
  EXPECT_EQ(rejected([&](XnnProgram* p) { conv_of(p)->ints[16] = 1; }), Error::kCorruptData)
      << "input channels 1 for a 2-channel input";
  EXPECT_EQ(rejected([&](XnnProgram* p) { conv_of(p)->ints[1] = 1u << 25; }), Error::kCorruptData)
      << "param past kMaxParam";
  EXPECT_EQ(rejected([&](XnnProgram* p) { conv_of(p)->floats[1] = -1; }), Error::kCorruptData)
      << "max < min";
  EXPECT_EQ(rejected([&](XnnProgram* p) {
              conv_of(p)->output = logical({1, 3, 2, 5, 5});
            }),
            Error::kCorruptData)
      << "output not NDHWC";
  EXPECT_EQ(rejected([&](XnnProgram* p) { conv_of(p)->operands = {0}; }), Error::kCorruptData)
      << "input not NDHWC";
  EXPECT_EQ(rejected([&](XnnProgram* p) {
              p->inputs[0] = logical({2, 5, 5, 2});
              p->ops[0].output = nhwc({2, 5, 5, 2});
            }),
            Error::kCorruptData)
      << "4-D input";
  EXPECT_EQ(rejected([](XnnProgram* p) {
              p->ops[2].output = logical({1, 3, 1, 1});
            }),
            Error::kCorruptData)
      << "mean over D, H, W keeping 4 dims";
  // A 1.7 blob has neither 5-D NDHWC slots nor the kind.
  std::vector<std::uint8_t> old = blob;
  old[6] = 7;
  EXPECT_EQ(parse(old), Error::kCorruptData);
}

TEST_P(XnnpackProgramParserTest, HeaderErrorsAreNamed) {
  std::vector<std::uint8_t> blob = model_blob(GetParam());
  std::vector<std::uint8_t> bad_magic = blob;
  bad_magic[0] = 'X';
  EXPECT_EQ(parse(bad_magic), Error::kCorruptData);
  std::vector<std::uint8_t> future = blob;
  future[4] = static_cast<std::uint8_t>(kXnnFormatMajor + 1);
  EXPECT_EQ(parse(future), Error::kVersionMismatch);
  std::vector<std::uint8_t> newer_minor = blob;
  newer_minor[6] = static_cast<std::uint8_t>(kXnnFormatMinor + 1);
  EXPECT_EQ(parse(newer_minor), Error::kVersionMismatch);
  std::vector<std::uint8_t> trailing = blob;
  trailing.push_back(0);
  EXPECT_EQ(parse(trailing), Error::kCorruptData);
  EXPECT_NE(parse({}), Error::kOk);
}

TEST_P(XnnpackProgramParserTest, EveryTruncationIsAnError) {
  expect_every_truncation_fails(model_blob(GetParam()));
}

TEST_P(XnnpackProgramParserTest, BitFlipsNeverCrash) {
  expect_bit_flips_fail_cleanly(model_blob(GetParam()));
}

TEST_P(XnnpackProgramParserTest, BadCompileSpecsAreErrors) {
  const std::vector<std::uint8_t> blob = model_blob(GetParam());
  runtime::MemoryAllocator memory;
  runtime::BackendInitContext context(&memory, nullptr, "forward");
  const std::uint8_t zero_threads[] = {'0'};
  const runtime::CompileSpecView specs[] = {{"threads", Span<const std::uint8_t>(zero_threads, 1)}};
  Result<runtime::DelegateHandle*> handle =
      xnnpack_backend_runtime().init(context, Span<const std::uint8_t>(blob.data(), blob.size()),
                                     Span<const runtime::CompileSpecView>(specs, 1));
  EXPECT_EQ(handle.error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::backends::xnnpack

namespace glassbox::backends::xnnpack {
namespace {

// Planned float32 tensors with a slot's exact shape.
struct PlannedTensor {
  std::vector<std::int64_t> sizes;
  std::vector<float> data;
  runtime::Tensor tensor;
  explicit PlannedTensor(const SlotDesc& slot)
      : sizes(slot.dims, slot.dims + slot.rank), data(static_cast<std::size_t>(slot.numel)) {
    tensor.dtype = ScalarType::kFloat;
    tensor.sizes = sizes;
    tensor.data = data.data();
    tensor.nbytes = data.size() * sizeof(float);
  }
};

// Method::load calls prepare with each delegate call's planned tensors: it
// accepts exactly the blob's input and output shapes.
TEST(XnnpackPrepareTest, AcceptsOnlyTheBlobsShapes) {
  const std::vector<std::uint8_t> blob = model_blob(false);
  runtime::MemoryAllocator memory;
  Result<ParsedProgram*> parsed =
      parse_xnn_program(Span<const std::uint8_t>(blob.data(), blob.size()), &memory);
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ((*parsed)->num_inputs, 1u);
  ASSERT_EQ((*parsed)->num_outputs, 1u);
  PlannedTensor in((*parsed)->slots[0]);
  PlannedTensor out((*parsed)->slots[(*parsed)->outputs[0]]);

  runtime::BackendInitContext context(&memory, nullptr, "forward");
  XnnpackBackendRuntime& backend = xnnpack_backend_runtime();
  Result<runtime::DelegateHandle*> handle =
      backend.init(context, Span<const std::uint8_t>(blob.data(), blob.size()), {});
  ASSERT_TRUE(handle.ok()) << handle.message();
  runtime::Tensor* ins[] = {&in.tensor};
  runtime::Tensor* outs[] = {&out.tensor};
  EXPECT_EQ(backend.prepare(*handle, ins, outs).code, Error::kOk);

  // An output buffer one element short, then a wrong dim with the right
  // byte count, then a missing output.
  runtime::Tensor short_out = out.tensor;
  short_out.nbytes -= sizeof(float);
  runtime::Tensor* short_outs[] = {&short_out};
  EXPECT_EQ(backend.prepare(*handle, ins, short_outs).code, Error::kInvalidArgument);
  std::vector<std::int64_t> reshaped = out.sizes;
  std::swap(reshaped.front(), reshaped.back());
  runtime::Tensor reshaped_out = out.tensor;
  reshaped_out.sizes = reshaped;
  runtime::Tensor* reshaped_outs[] = {&reshaped_out};
  if (reshaped != out.sizes) {
    EXPECT_EQ(backend.prepare(*handle, ins, reshaped_outs).code, Error::kInvalidArgument);
  }
  EXPECT_EQ(backend.prepare(*handle, ins, {}).code, Error::kInvalidArgument);
  backend.destroy(*handle);
}

}  // namespace
}  // namespace glassbox::backends::xnnpack

namespace glassbox::backends::xnnpack {
namespace {

// Format 1.6: input f32 [2, 4] -> quantize (uint8) -> int8 fully connected
// (4 -> 3, per-channel scales) -> lookup table -> dequantize -> output.
XnnTensorDesc quantized(std::vector<std::int64_t> dims, XnnDType dtype, float scale,
                        std::int32_t zero_point) {
  XnnTensorDesc d{std::move(dims), XnnLayout::kLogical};
  d.dtype = dtype;
  d.scale = scale;
  d.zero_point = zero_point;
  return d;
}

XnnProgram int8_program() {
  XnnProgram p;
  p.inputs = {logical({2, 4})};
  XnnOp quantize;
  quantize.kind = XnnOpKind::kQuantize;
  quantize.identifier = std::int64_t{0};
  quantize.operands = {0};
  quantize.output = quantized({2, 4}, XnnDType::kQu8, 0.01f, -3);
  XnnOp fc;
  fc.kind = XnnOpKind::kQFullyConnected;
  fc.identifier = std::int64_t{1};
  fc.operands = {1};
  fc.output = quantized({2, 3}, XnnDType::kQs8, 0.05f, 2);
  fc.ints = {4, 3, static_cast<std::uint32_t>(-128), 127};
  fc.floats = {0.01f, 0.02f, 0.03f};                            // kernel scales
  fc.bytes = {1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};  // i32 bias
  for (std::uint8_t k = 0; k < 12; ++k) fc.bytes.push_back(k);  // i8 kernel
  XnnOp table;
  table.kind = XnnOpKind::kQLookupTable;
  table.identifier = std::int64_t{2};
  table.operands = {2};
  table.output = quantized({2, 3}, XnnDType::kQs8, 0.05f, 2);
  for (int b = 0; b < 256; ++b) table.bytes.push_back(static_cast<std::uint8_t>(255 - b));
  XnnOp dequantize;
  dequantize.kind = XnnOpKind::kDequantize;
  dequantize.identifier = std::int64_t{3};
  dequantize.operands = {3};
  dequantize.output = logical({2, 3});
  dequantize.floats = {0.05f};
  dequantize.bytes = {2, 0, 0, 0};  // i32 zero point
  p.ops = {quantize, fc, table, dequantize};
  p.outputs = {4};
  return p;
}

TEST(XnnpackProgramParserQuantTest, AcceptsInt8Programs) {
  const std::vector<std::uint8_t> blob = encode_xnn_program(int8_program());
  runtime::MemoryAllocator memory;
  Result<ParsedProgram*> program =
      parse_xnn_program(Span<const std::uint8_t>(blob.data(), blob.size()), &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  const SlotDesc& q = (*program)->slots[1];
  EXPECT_EQ(q.dtype, XnnDType::kQu8);
  EXPECT_EQ(q.element_size(), 1u);
  EXPECT_EQ(q.zero_point, -3);
  EXPECT_EQ((*program)->ops[1].bias_count, 3u);
  EXPECT_EQ((*program)->ops[1].weight_count, 12u);
  EXPECT_EQ((*program)->ops[3].zero_point, 2);
  EXPECT_EQ(init_and_destroy(blob), Error::kOk);
  keep_as_fuzz_seed("int8", blob);
}

TEST(XnnpackProgramParserQuantTest, RejectsCorruptQuantFields) {
  const auto corrupt = [](const char* what, const std::function<void(XnnProgram*)>& edit) {
    XnnProgram p = int8_program();
    edit(&p);
    EXPECT_EQ(parse(encode_xnn_program(p)), Error::kCorruptData) << what;
  };
  constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  corrupt("slot scale 0", [](XnnProgram* p) { p->ops[0].output.scale = 0; });
  corrupt("slot scale NaN", [&](XnnProgram* p) { p->ops[0].output.scale = kNan; });
  corrupt("slot scale inf", [&](XnnProgram* p) { p->ops[1].output.scale = kInf; });
  corrupt("slot scale negative", [](XnnProgram* p) { p->ops[1].output.scale = -0.5f; });
  corrupt("zero point 128", [](XnnProgram* p) { p->ops[0].output.zero_point = 128; });
  corrupt("zero point -129", [](XnnProgram* p) { p->ops[1].output.zero_point = -129; });
  corrupt("unknown dtype", [](XnnProgram* p) { p->ops[0].output.dtype = XnnDType{3}; });
  corrupt("a float op's output quantized",
          [](XnnProgram* p) { p->ops[3].output.dtype = XnnDType::kQs8; });
  corrupt("a quantize to float", [](XnnProgram* p) { p->ops[0].output.dtype = XnnDType::kF32; });
  corrupt("an int8 op on a float slot", [](XnnProgram* p) { p->ops[1].operands = {0}; });
  corrupt("a quantized constant", [](XnnProgram* p) {
    p->constants.push_back({quantized({1}, XnnDType::kQs8, 1.f, 0), {1.f}});
    for (XnnOp& op : p->ops) {
      for (std::uint32_t& s : op.operands) s += 1;
    }
    p->outputs[0] += 1;
  });
  corrupt("kernel scale 0", [](XnnProgram* p) { p->ops[1].floats[1] = 0; });
  corrupt("kernel scale NaN", [&](XnnProgram* p) { p->ops[1].floats[2] = kNan; });
  corrupt("range min > max", [](XnnProgram* p) {
    p->ops[1].ints[2] = 5;
    p->ops[1].ints[3] = 4;
  });
  corrupt("range below int8",
          [](XnnProgram* p) { p->ops[1].ints[2] = static_cast<std::uint32_t>(-129); });
  corrupt("range above int8", [](XnnProgram* p) { p->ops[1].ints[3] = 128; });
  corrupt("a kernel byte missing", [](XnnProgram* p) { p->ops[1].bytes.pop_back(); });
  corrupt("a kernel byte too many", [](XnnProgram* p) { p->ops[1].bytes.push_back(0); });
  corrupt("a table byte missing", [](XnnProgram* p) { p->ops[2].bytes.pop_back(); });
  corrupt("dequantize scale 0", [](XnnProgram* p) { p->ops[3].floats[0] = 0; });
  corrupt("dequantize zero point 200", [](XnnProgram* p) { p->ops[3].bytes[0] = 200; });
  corrupt("dequantize zero point missing", [](XnnProgram* p) { p->ops[3].bytes.clear(); });
  // A 1.5 reader's blob has no dtype bytes: 1.6 kinds in it are corrupt.
  std::vector<std::uint8_t> older = encode_xnn_program(int8_program());
  older[6] = static_cast<std::uint8_t>(kXnnQuantMinor - 1);
  EXPECT_NE(parse(older), Error::kOk);
}

TEST(XnnpackProgramParserQuantTest, TruncationsAndBitFlipsFailCleanly) {
  const std::vector<std::uint8_t> blob = encode_xnn_program(int8_program());
  expect_every_truncation_fails(blob);
  expect_bit_flips_fail_cleanly(blob);
}

}  // namespace
}  // namespace glassbox::backends::xnnpack
