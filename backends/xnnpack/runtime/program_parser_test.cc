// The runtime half against corrupt processed bytes: every truncation is an
// error, bit flips are errors or still-valid programs that init cleanly,
// never a crash (run this under the asan preset too).

#include "backends/xnnpack/runtime/program_parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "backends/xnnpack/aot/xnnpack_backend.h"
#include "backends/xnnpack/runtime/xnnpack_runtime.h"
#include "backends/xnnpack/testing/xnnpack_test_models.h"

namespace glassbox::backends::xnnpack {
namespace {

// The processed bytes of the whole MobileNet-like model (every node is
// one XNNPACK takes, so the graph itself is the partition).
std::vector<std::uint8_t> good_blob() {
  StatusOr<aot::Graph> graph = build_mobile_like(1, 8);
  EXPECT_TRUE(graph.ok()) << graph.message();
  XnnpackBackend backend;
  StatusOr<aot::PreprocessResult> result = backend.preprocess(*graph, {});
  EXPECT_TRUE(result.ok()) << result.message();
  return result->processed_bytes;
}

Error parse(const std::vector<std::uint8_t>& blob) {
  runtime::MemoryAllocator memory;
  return parse_xnn_program(Span<const std::uint8_t>(blob.data(), blob.size()), &memory).error();
}

// Full init (parse, XNNPACK create + setup), then destroy.
Error init_and_destroy(const std::vector<std::uint8_t>& blob) {
  runtime::MemoryAllocator memory;
  runtime::BackendInitContext context(&memory, nullptr, "forward");
  XnnpackBackendRuntime& backend = xnnpack_backend_runtime();
  Result<runtime::DelegateHandle*> handle =
      backend.init(context, Span<const std::uint8_t>(blob.data(), blob.size()), {});
  if (!handle.ok()) return handle.error();
  backend.destroy(*handle);
  return Error::kOk;
}

TEST(XnnpackProgramParserTest, AcceptsWhatTheAotHalfWrites) {
  const std::vector<std::uint8_t> blob = good_blob();
  runtime::MemoryAllocator memory;
  Result<ParsedProgram*> program =
      parse_xnn_program(Span<const std::uint8_t>(blob.data(), blob.size()), &memory);
  ASSERT_TRUE(program.ok()) << program.error_info().message;
  EXPECT_EQ((*program)->num_inputs, 1u);
  EXPECT_EQ((*program)->num_outputs, 1u);
  EXPECT_GT((*program)->num_ops, 10u);
  EXPECT_EQ(init_and_destroy(blob), Error::kOk);
}

TEST(XnnpackProgramParserTest, HeaderErrorsAreNamed) {
  std::vector<std::uint8_t> blob = good_blob();
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

TEST(XnnpackProgramParserTest, EveryTruncationIsAnError) {
  const std::vector<std::uint8_t> blob = good_blob();
  for (std::size_t n = 0; n < blob.size(); ++n) {
    const std::vector<std::uint8_t> cut(blob.begin(), blob.begin() + static_cast<std::ptrdiff_t>(n));
    ASSERT_NE(parse(cut), Error::kOk) << "length " << n;
  }
}

TEST(XnnpackProgramParserTest, BitFlipsNeverCrash) {
  const std::vector<std::uint8_t> blob = good_blob();
  int rejected = 0, accepted = 0;
  // Every byte outside the bulk of the weights, plus a sample inside; a
  // flipped weight only changes a number.
  for (std::size_t i = 0; i < blob.size(); i += i < 4096 ? 1 : 97) {
    for (std::uint8_t bit : {std::uint8_t{0x01}, std::uint8_t{0x10}, std::uint8_t{0x80}}) {
      std::vector<std::uint8_t> flipped = blob;
      flipped[i] ^= bit;
      if (init_and_destroy(flipped) == Error::kOk) {
        ++accepted;
      } else {
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(accepted, 0);
}

TEST(XnnpackProgramParserTest, BadCompileSpecsAreErrors) {
  const std::vector<std::uint8_t> blob = good_blob();
  runtime::MemoryAllocator memory;
  runtime::BackendInitContext context(&memory, nullptr, "forward");
  const std::uint8_t zero_threads[] = {'0'};
  const runtime::CompileSpecView specs[] = {{"threads", Span<const std::uint8_t>(zero_threads, 1)}};
  Result<runtime::DelegateHandle*> handle = xnnpack_backend_runtime().init(
      context, Span<const std::uint8_t>(blob.data(), blob.size()),
      Span<const runtime::CompileSpecView>(specs, 1));
  EXPECT_EQ(handle.error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::backends::xnnpack
