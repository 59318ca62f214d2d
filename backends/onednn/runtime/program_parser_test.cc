#include "backends/onednn/runtime/program_parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backends/onednn/aot/onednn_program.h"

namespace glassbox::backends::onednn {
namespace {

// x [1, 2, 4, 4] -> conv 3x3 (3 filters, no padding) + relu -> [1, 3, 2, 2]
// -> reorder to plain.
DnnProgram conv_program() {
  DnnProgram p;
  p.inputs = {{1, 2, 4, 4}};
  p.constants = {{{3, 2, 3, 3}, std::vector<float>(54, 0.5f)}, {{3}, {0.f, 1.f, 2.f}}};
  DnnOp conv{
      .kind = DnnOpKind::kConvolution,
      .identifier = std::int64_t{0},
      .operands = {0, 1, 2},
      .output = {1, 3, 2, 2},
      .ints = {1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, static_cast<std::int64_t>(DnnEltwise::kRelu)},
      .floats = {0.f, 0.f}};
  DnnOp plain{.kind = DnnOpKind::kReorder,
              .identifier = std::string("y.to_plain"),
              .operands = {3},
              .output = {1, 3, 2, 2},
              .ints = {0},
              .floats = {}};
  p.ops = {conv, plain};
  p.outputs = {4};
  return p;
}

Result<DnnParsedProgram*> parse(const std::vector<std::uint8_t>& bytes,
                                runtime::MemoryAllocator* memory) {
  return parse_dnn_program(Span<const std::uint8_t>(bytes.data(), bytes.size()), memory);
}

// `p` is refused with a message holding `fragment`.
void refused(const DnnProgram& p, const char* fragment) {
  runtime::MemoryAllocator memory;
  Result<DnnParsedProgram*> program = parse(encode_dnn_program(p), &memory);
  ASSERT_FALSE(program.ok()) << fragment;
  EXPECT_NE(std::string(program.error_info().message).find(fragment), std::string::npos)
      << program.error_info().message;
}

// `p` written as format 1.`minor` is refused: it holds a kind or a form
// newer than that version.
void refused_as_minor(const DnnProgram& p, std::uint16_t minor) {
  runtime::MemoryAllocator memory;
  std::vector<std::uint8_t> bytes = encode_dnn_program(p);
  bytes[6] = static_cast<std::uint8_t>(minor);
  bytes[7] = 0;
  Result<DnnParsedProgram*> old = parse(bytes, &memory);
  ASSERT_FALSE(old.ok()) << "minor " << minor;
  EXPECT_NE(std::string(old.error_info().message).find("newer than the format version"),
            std::string::npos)
      << old.error_info().message;
}

TEST(OnednnProgramParserTest, ParsesWhatTheEncoderWrites) {
  runtime::MemoryAllocator memory;
  const std::vector<std::uint8_t> bytes = encode_dnn_program(conv_program());
  Result<DnnParsedProgram*> program = parse(bytes, &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  const DnnParsedProgram& p = **program;
  EXPECT_EQ(p.num_inputs, 1u);
  EXPECT_EQ(p.num_constants, 2u);
  EXPECT_EQ(p.num_ops, 2u);
  EXPECT_EQ(p.ops[0].num_steps, 1u);
  EXPECT_EQ(p.ops[0].int_id.value, 0);
  EXPECT_STREQ(p.ops[1].name, "y.to_plain");
  EXPECT_EQ(p.outputs[0], 4u);
  float bias[3];
  std::memcpy(bias, p.constant_data[1], sizeof(bias));
  EXPECT_EQ(bias[2], 2.f);
}

TEST(OnednnProgramParserTest, EveryTruncationIsAnError) {
  const std::vector<std::uint8_t> bytes = encode_dnn_program(conv_program());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    runtime::MemoryAllocator memory;
    const std::vector<std::uint8_t> prefix(bytes.begin(), bytes.begin() + n);
    EXPECT_FALSE(parse(prefix, &memory).ok()) << "prefix of " << n << " bytes";
  }
}

TEST(OnednnProgramParserTest, RefusesAnOutputShapeItsOperatorCannotWrite) {
  DnnProgram p = conv_program();
  p.ops[0].output = {1, 3, 3, 3};  // no padding: 4 - 3 + 1 = 2, not 3
  p.ops[1].output = {1, 3, 3, 3};
  runtime::MemoryAllocator memory;
  Result<DnnParsedProgram*> program = parse(encode_dnn_program(p), &memory);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.error(), Error::kCorruptData);
  EXPECT_NE(std::string(program.error_info().message).find("convolution output shape"),
            std::string::npos);
}

// x [2, 4] (plus the residual r [2, 3]) -> x W + b + r (the sum, a
// fourth operand since format 1.2).
TEST(OnednnProgramParserTest, ChecksTheMatmulSumOperand) {
  DnnProgram p;
  p.inputs = {{2, 4}, {2, 3}};
  p.constants = {{{4, 3}, std::vector<float>(12, 0.5f)}, {{3}, {0.f, 1.f, 2.f}}};
  p.ops = {DnnOp{.kind = DnnOpKind::kMatmul,
                 .identifier = std::int64_t{0},
                 .operands = {0, 2, 3, 1},
                 .output = {2, 3},
                 .ints = {0},
                 .floats = {}}};
  p.outputs = {4};
  runtime::MemoryAllocator memory;
  Result<DnnParsedProgram*> program = parse(encode_dnn_program(p), &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  EXPECT_EQ((*program)->ops[0].num_operands, 4u);

  p.inputs[1] = {2, 4};  // a residual of another shape
  runtime::MemoryAllocator memory2;
  program = parse(encode_dnn_program(p), &memory2);
  ASSERT_FALSE(program.ok());
  EXPECT_NE(std::string(program.error_info().message).find("matmul sum operand shape"),
            std::string::npos);
}

TEST(OnednnProgramParserTest, RefusesWeightsThatAreNotConstants) {
  DnnProgram p = conv_program();
  p.inputs.push_back({3, 2, 3, 3});  // slot 1 is now an input
  runtime::MemoryAllocator memory;
  EXPECT_EQ(parse(encode_dnn_program(p), &memory).error(), Error::kCorruptData);
}

TEST(OnednnProgramParserTest, RefusesOperandsDefinedLater) {
  DnnProgram p = conv_program();
  p.ops[1].operands = {4};  // its own slot
  runtime::MemoryAllocator memory;
  EXPECT_EQ(parse(encode_dnn_program(p), &memory).error(), Error::kCorruptData);
}

TEST(OnednnProgramParserTest, RefusesUnknownEltwiseAndNewerVersions) {
  DnnProgram p = conv_program();
  p.ops[0].ints.back() = kDnnMaxEltwise + 1;
  runtime::MemoryAllocator memory;
  EXPECT_EQ(parse(encode_dnn_program(p), &memory).error(), Error::kCorruptData);
  std::vector<std::uint8_t> bytes = encode_dnn_program(conv_program());
  bytes[4] = kDnnFormatMajor + 1;
  EXPECT_EQ(parse(bytes, &memory).error(), Error::kVersionMismatch);
  bytes = encode_dnn_program(conv_program());
  bytes[0] = 'X';
  EXPECT_EQ(parse(bytes, &memory).error(), Error::kCorruptData);
}

// x [1, 2, 3, 5, 5] -> conv 2x3x3 (4 filters, padding 0, 1, 1 / 1, 1, 1,
// stride 1, 2, 2) -> [1, 4, 3, 3, 3] -> max pool 3x1x1 -> [1, 4, 1, 3, 3].
DnnProgram volume_program() {
  DnnProgram p;
  p.inputs = {{1, 2, 3, 5, 5}};
  p.constants = {{{4, 2, 2, 3, 3}, std::vector<float>(144, 0.5f)}, {{4}, {0.f, 1.f, 2.f, 3.f}}};
  DnnOp conv{.kind = DnnOpKind::kConvolution,
             .identifier = std::int64_t{0},
             .operands = {0, 1, 2},
             .output = {1, 4, 3, 3, 3},
             .ints = {1, 2, 2, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0},
             .floats = {}};
  DnnOp pool{.kind = DnnOpKind::kPooling,
             .identifier = std::int64_t{1},
             .operands = {3},
             .output = {1, 4, 1, 3, 3},
             .ints = {0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0},
             .floats = {}};
  p.ops = {conv, pool};
  p.outputs = {4};
  return p;
}

TEST(OnednnProgramParserTest, ChecksVolumeConvolutionsAndPoolsAndTheirVersion) {
  runtime::MemoryAllocator memory;
  Result<DnnParsedProgram*> program = parse(encode_dnn_program(volume_program()), &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  EXPECT_EQ((*program)->ops[0].num_ints, 15u);
  EXPECT_EQ((*program)->ops[1].num_ints, 16u);

  DnnProgram p = volume_program();
  p.ops[0].output = {1, 4, 3, 3, 2};  // W: (5 + 1 + 1 - 3) / 2 + 1 = 3
  refused(p, "convolution output shape");
  p = volume_program();
  p.ops[1].output = {1, 4, 2, 3, 3};  // D: (3 - 3) / 1 + 1 = 1
  refused(p, "pooling output shape");
  p = volume_program();
  p.ops[0].ints.erase(p.ops[0].ints.begin());  // the 2-D count of ints
  refused(p, "");
  // A 1.4 reader's layout: a 5-D source is newer than the version.
  refused_as_minor(volume_program(), kDnnFirstVolumeMinor - 1);
}

// a [2, 1, 3, 4] x b [5, 4, 6] -> [2, 5, 3, 6], then transposed by perm.
DnnProgram attention_program(std::vector<std::int64_t> perm, std::vector<std::int64_t> out) {
  DnnProgram p;
  p.inputs = {{2, 1, 3, 4}, {5, 4, 6}};
  DnnOp matmul{.kind = DnnOpKind::kBatchMatmul,
               .identifier = std::int64_t{0},
               .operands = {0, 1},
               .output = {2, 5, 3, 6},
               .ints = {0},
               .floats = {}};
  DnnOp transpose{.kind = DnnOpKind::kTranspose,
                  .identifier = std::int64_t{1},
                  .operands = {2},
                  .output = std::move(out),
                  .ints = std::move(perm),
                  .floats = {}};
  p.ops = {matmul, transpose};
  p.outputs = {3};
  return p;
}

TEST(OnednnProgramParserTest, ChecksBatchMatmulShapesAndTransposePermutations) {
  runtime::MemoryAllocator memory;
  EXPECT_TRUE(
      parse(encode_dnn_program(attention_program({0, 2, 1, 3}, {2, 3, 5, 6})), &memory).ok());
  // Not a permutation, a repeated dim, the wrong output, the wrong count.
  for (const auto& [perm, out] :
       std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>{
           {{0, 2, 1, 4}, {2, 3, 5, 6}},
           {{0, 1, 1, 3}, {2, 5, 5, 6}},
           {{0, 2, 1, 3}, {2, 5, 3, 6}},
           {{0, 2, 1}, {2, 3, 5, 6}}}) {
    Result<DnnParsedProgram*> program =
        parse(encode_dnn_program(attention_program(perm, out)), &memory);
    ASSERT_FALSE(program.ok());
    EXPECT_EQ(program.error(), Error::kCorruptData);
  }
  // Batch dims that do not broadcast (2 against 5), and K that differs.
  DnnProgram p = attention_program({0, 1, 2, 3}, {2, 5, 3, 6});
  p.inputs[0] = {2, 2, 3, 4};
  EXPECT_EQ(parse(encode_dnn_program(p), &memory).error(), Error::kCorruptData);
  p = attention_program({0, 1, 2, 3}, {2, 5, 3, 6});
  p.inputs[1] = {5, 3, 6};
  EXPECT_EQ(parse(encode_dnn_program(p), &memory).error(), Error::kCorruptData);
}

TEST(OnednnProgramParserTest, RefusesSlicesThatReadOutsideTheirInput) {
  // x [4, 6] -> rows 1, 3 (start 1, step 2), columns 2..4.
  auto program = [](std::vector<std::int64_t> ints, std::vector<std::int64_t> out) {
    DnnProgram p;
    p.inputs = {{4, 6}};
    p.ops = {DnnOp{.kind = DnnOpKind::kSlice,
                   .identifier = std::int64_t{0},
                   .operands = {0},
                   .output = std::move(out),
                   .ints = std::move(ints),
                   .floats = {}}};
    p.outputs = {1};
    return encode_dnn_program(p);
  };
  runtime::MemoryAllocator memory;
  EXPECT_TRUE(parse(program({1, 2, 2, 1}, {2, 3}), &memory).ok());
  for (const auto& [ints, out] :
       std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>{
           {{1, 2, 2, 1}, {3, 3}},   // row 1 + 2 * 2 = 5 > 3
           {{1, 4, 2, 1}, {2, 3}},   // column 4 + 2 = 6 > 5
           {{-1, 2, 2, 1}, {2, 3}},  // negative start
           {{1, 2, 0, 1}, {2, 3}},   // step 0
           {{1, 2, 2}, {2, 3}}}) {   // a step missing
    Result<DnnParsedProgram*> parsed = parse(program(ints, out), &memory);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.error(), Error::kCorruptData);
  }
}

TEST(OnednnProgramParserTest, RefusesAnOutputThatIsNotAnOperators) {
  DnnProgram p = conv_program();
  p.outputs = {0};
  runtime::MemoryAllocator memory;
  EXPECT_EQ(parse(encode_dnn_program(p), &memory).error(), Error::kCorruptData);
}

}  // namespace
}  // namespace glassbox::backends::onednn

namespace glassbox::backends::onednn {
namespace {

// x f32 [1, 2, 4, 4] -> quantize (u8) -> int8 conv 3x3 (s8 weights, s32
// bias, per-channel output scales) -> dequantize.
DnnProgram int8_program() {
  DnnProgram p;
  p.inputs = {{1, 2, 4, 4}};
  const DnnQuant u8{DnnDataType::kU8, 0.02f, 128};
  p.constants = {{{3, 2, 3, 3}, {}, {DnnDataType::kS8, 1.f, 0}, std::vector<std::int32_t>(54, -3)},
                 {{3}, {}, {DnnDataType::kS32, 1.f, 0}, {5, -7, 9}},
                 {{3}, {0.1f, 0.2f, 0.3f}}};
  p.ops = {{.kind = DnnOpKind::kQuantize,
            .identifier = std::int64_t{0},
            .operands = {0},
            .output = {1, 2, 4, 4},
            .ints = {},
            .floats = {},
            .quant = u8},
           {.kind = DnnOpKind::kQConvolution,
            .identifier = std::int64_t{1},
            .operands = {4, 1, 2, 3},
            .output = {1, 3, 2, 2},
            .ints = {1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, static_cast<std::int64_t>(DnnEltwise::kRelu)},
            .floats = {0.f, 0.f},
            .quant = u8},
           {.kind = DnnOpKind::kDequantize,
            .identifier = std::int64_t{2},
            .operands = {5},
            .output = {1, 3, 2, 2},
            .ints = {},
            .floats = {}}};
  p.outputs = {6};
  return p;
}

TEST(OnednnProgramParserTest, ParsesInt8Tensors) {
  runtime::MemoryAllocator memory;
  const std::vector<std::uint8_t> bytes = encode_dnn_program(int8_program());
  Result<DnnParsedProgram*> program = parse(bytes, &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  const DnnParsedProgram& p = **program;
  EXPECT_EQ(p.slots[1].type, DnnDataType::kS8);
  EXPECT_EQ(p.slots[1].bytes(), 54u);
  EXPECT_EQ(p.slots[4].type, DnnDataType::kU8);
  EXPECT_EQ(p.slots[4].zero_point, 128);
  EXPECT_FLOAT_EQ(p.slots[4].scale, 0.02f);
  EXPECT_EQ(p.slots[6].type, DnnDataType::kF32);
  std::int32_t bias[3];
  std::memcpy(bias, p.constant_data[1], sizeof(bias));
  EXPECT_EQ(bias[1], -7);
}

// Each corrupt quantization field is refused with its own message.
TEST(OnednnProgramParserTest, RejectsCorruptQuantFields) {
  DnnProgram p = int8_program();
  p.ops[0].quant.scale = 0.f;
  refused(p, "bad output descriptor");
  p = int8_program();
  p.ops[0].quant.scale = std::numeric_limits<float>::quiet_NaN();
  refused(p, "bad output descriptor");
  p = int8_program();
  p.ops[0].quant.zero_point = 256;  // outside u8
  refused(p, "bad output descriptor");
  p = int8_program();
  p.ops[0].quant = {DnnDataType::kS8, 0.02f, 128};  // outside s8
  refused(p, "bad output descriptor");
  p = int8_program();
  p.constants[0].quant.type = DnnDataType::kU8;  // weights must be s8
  refused(p, "int8 convolution weights");
  p = int8_program();
  p.constants[1].quant.type = DnnDataType::kF32;  // bias must be s32
  p.constants[1].data = {5.f, -7.f, 9.f};
  refused(p, "int8 convolution weights");
  p = int8_program();
  p.constants[2].data[1] = -0.2f;  // output scales must be positive
  refused(p, "int8 convolution weights");
  p = int8_program();
  p.ops[1].quant = {};  // an int8 convolution writing f32
  refused(p, "int8 convolution weights");
  p = int8_program();
  p.ops[2].quant = {DnnDataType::kS8, 0.1f, 0};  // a dequantize writing int8
  refused(p, "quantize or dequantize types");
  p = int8_program();
  p.ops[2].kind = DnnOpKind::kEltwise;  // a float kind reading int8
  p.ops[2].ints = {1, static_cast<std::int64_t>(DnnEltwise::kRelu)};
  p.ops[2].floats = {0.f, 0.f};
  refused(p, "float operator with an int8 operand");
  // A data type byte out of range.
  std::vector<std::uint8_t> bytes = encode_dnn_program(int8_program());
  bytes[kDnnHeaderSize + 1 + 4 * 8] = kDnnMaxDataType + 1;  // the input's type
  runtime::MemoryAllocator memory;
  Result<DnnParsedProgram*> program = parse(bytes, &memory);
  ASSERT_FALSE(program.ok());
  EXPECT_NE(std::string(program.error_info().message).find("bad input descriptor"),
            std::string::npos);
}

// x [1, 2, 4, 4] -> quantize (u8) -> kQClamp (one quantization, [128,
// 200]) -> kQClamp (a table into another quantization, entries 10..90) ->
// kQGlobalAvgPool (a third) -> dequantize.
DnnProgram int8_clamp_pool_program() {
  DnnProgram p;
  p.inputs = {{1, 2, 4, 4}};
  std::vector<std::int32_t> table(256);
  for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = 10 + i * 80 / 255;
  p.constants = {{{256}, {}, {DnnDataType::kU8, 1.f, 0}, table}};
  const DnnQuant u8{DnnDataType::kU8, 0.02f, 128};
  const DnnQuant other{DnnDataType::kU8, 0.05f, 10};
  p.ops = {{.kind = DnnOpKind::kQuantize,
            .identifier = std::int64_t{0},
            .operands = {0},
            .output = {1, 2, 4, 4},
            .ints = {},
            .floats = {},
            .quant = u8},
           {.kind = DnnOpKind::kQClamp,
            .identifier = std::int64_t{1},
            .operands = {2},
            .output = {1, 2, 4, 4},
            .ints = {128, 200},
            .floats = {},
            .quant = u8},
           {.kind = DnnOpKind::kQClamp,
            .identifier = std::int64_t{2},
            .operands = {3, 1},
            .output = {1, 2, 4, 4},
            .ints = {10, 90},
            .floats = {},
            .quant = other},
           {.kind = DnnOpKind::kQGlobalAvgPool,
            .identifier = std::int64_t{3},
            .operands = {4},
            .output = {1, 2, 1, 1},
            .ints = {},
            .floats = {},
            .quant = {DnnDataType::kU8, 0.01f, 3}},
           {.kind = DnnOpKind::kDequantize,
            .identifier = std::int64_t{4},
            .operands = {5},
            .output = {1, 2, 1, 1},
            .ints = {},
            .floats = {}}};
  p.outputs = {6};
  return p;
}

TEST(OnednnProgramParserTest, ChecksInt8ClampsAndGlobalAveragePools) {
  runtime::MemoryAllocator memory;
  Result<DnnParsedProgram*> program = parse(encode_dnn_program(int8_clamp_pool_program()), &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  EXPECT_EQ((*program)->ops[2].num_operands, 2u);
  DnnProgram p = int8_clamp_pool_program();
  p.ops[1].quant.scale = 0.03f;  // a clamp without a table keeps its source's quantization
  refused(p, "int8 clamp");
  p = int8_clamp_pool_program();
  p.ops[1].ints = {-1, 200};  // below u8
  refused(p, "int8 clamp");
  p = int8_clamp_pool_program();
  p.ops[1].ints = {201, 200};
  refused(p, "int8 clamp");
  p = int8_clamp_pool_program();
  p.ops[2].ints = {11, 90};  // the table's 10 is outside
  refused(p, "int8 clamp");
  p = int8_clamp_pool_program();
  p.constants[0].dims = {255};
  p.constants[0].int_data.pop_back();
  refused(p, "int8 clamp");
  p = int8_clamp_pool_program();
  p.constants[0].quant.type = DnnDataType::kS8;
  p.constants[0].int_data.assign(256, 0);
  refused(p, "int8 clamp");
  p = int8_clamp_pool_program();
  p.ops[3].output = {1, 2, 2, 1};
  refused(p, "int8 global average pool");
  p = int8_clamp_pool_program();
  p.ops[3].quant.type = DnnDataType::kS8;
  refused(p, "int8 global average pool");
  // Kinds of 1.4 in a 1.3 blob.
  refused_as_minor(int8_clamp_pool_program(), kDnnFirstQClampMinor - 1);
}

// x [T=3, N=2, I=4] -> a forward LSTM of H=5 (y [3, 1, 2, 5]) with a
// computed initial h and c [1, 2, 5], then its y_c.
DnnProgram rnn_program() {
  DnnProgram p;
  p.inputs = {{3, 2, 4}, {1, 2, 5}, {1, 2, 5}};
  p.constants = {{{1, 4, 4, 5}, std::vector<float>(80, 0.1f)},
                 {{1, 5, 4, 5}, std::vector<float>(100, 0.1f)},
                 {{1, 4, 5}, std::vector<float>(20, 0.f)}};
  DnnOp rnn{.kind = DnnOpKind::kRnn,
            .identifier = std::int64_t{0},
            .operands = {0, 3, 4, 5, 1, 2},
            .output = {3, 1, 2, 5},
            .ints = {static_cast<std::int64_t>(DnnRnnCell::kLstm), 0, 0, 0, 0, 1, 1},
            .floats = {}};
  DnnOp state{.kind = DnnOpKind::kRnnState,
              .identifier = std::int64_t{1},
              .operands = {6},
              .output = {1, 2, 5},
              .ints = {1},
              .floats = {}};
  p.ops = {rnn, state};
  p.outputs = {6, 7};
  return p;
}

TEST(OnednnProgramParserTest, ChecksRecurrentLayersTheirStatesAndTheirVersion) {
  runtime::MemoryAllocator memory;
  Result<DnnParsedProgram*> program = parse(encode_dnn_program(rnn_program()), &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  EXPECT_EQ((*program)->ops[0].num_operands, 6u);

  DnnProgram p = rnn_program();
  p.ops[0].output = {3, 2, 2, 5};  // two directions of a forward layer
  refused(p, "rnn output does not match");
  p = rnn_program();
  p.constants[0].dims = {1, 4, 3, 5};  // GRU's gate count for an LSTM
  p.constants[0].data.resize(60);
  refused(p, "rnn weights or bias do not match");
  p = rnn_program();
  p.ops[0].ints[6] = 0;  // c0 present but not announced
  refused(p, "rnn operand count");
  p = rnn_program();
  p.ops[0].ints[0] = static_cast<std::int64_t>(DnnRnnCell::kGru);  // a GRU has no c0
  refused(p, "rnn activation, peephole or cell state of another cell");
  p = rnn_program();
  p.ops[0].ints[3] = static_cast<std::int64_t>(DnnEltwise::kTanh);  // only a vanilla cell's
  refused(p, "rnn activation");
  p = rnn_program();
  p.ops[1].operands = {0};  // the state of an input
  refused(p, "rnn state not of an rnn");
  p = rnn_program();
  p.ops[1].output = {2, 2, 5};
  refused(p, "rnn state does not match");
  // A 1.5 reader's: kRnn is newer than the version.
  refused_as_minor(rnn_program(), kDnnFirstRnnMinor - 1);
}

}  // namespace
}  // namespace glassbox::backends::onednn
