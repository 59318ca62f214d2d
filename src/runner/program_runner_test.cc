// run_program end to end on small programs built here: outputs and inputs
// of every dtype are read and written at their own width.

#include "glassbox/runner/program_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "glassbox/aot/graph_builder.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/npy/npy.h"
#include "src/testing/status_matchers.h"

namespace glassbox::runner {
namespace {

namespace fs = std::filesystem;
using ::glassbox::testing::IsOk;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A uint8 output of 64 KiB was read as 4-byte floats (a heap over-read of
// 192 KiB) and written as 262 KB of float32; its uint8 input was written 4
// bytes an element into a 1-byte-an-element buffer. Both keep their width.
TEST(ProgramRunnerTest, AByteInputAndOutputKeepTheirWidth) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("program_runner_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  constexpr std::int64_t kSide = 256;  // 64 KiB of uint8.
  aot::GraphBuilder b;
  b.output(b.input("x", ScalarType::kByte, {kSide, kSide}));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  StatusOr<exporter::ExecutorchProgramManager> program =
      exporter::export_model(std::move(*graph), exporter::Recipe{});
  ASSERT_THAT(program, IsOk());
  ASSERT_THAT(program->save((dir / "bytes.gbx").string()), IsOk());

  npy::Array input{{kSide, kSide}, std::vector<float>(kSide * kSide)};
  for (std::int64_t i = 0; i < kSide * kSide; ++i) input.int_data.push_back((i * 7) % 256);
  ASSERT_THAT(npy::write_file((dir / "x.npy").string(), input), IsOk());

  RunOptions run;
  run.program_path = (dir / "bytes.gbx").string();
  run.etdump_path = (dir / "run.etdp").string();
  run.input_path = (dir / "x.npy").string();
  run.output_path = (dir / "y.npy").string();
  StatusOr<RunSummary> summary = run_program(run);
  ASSERT_THAT(summary, IsOk());
  ASSERT_EQ(summary->outputs.size(), 1u);
  EXPECT_EQ(summary->outputs[0][kSide * kSide - 1], float(((kSide * kSide - 1) * 7) % 256));

  const std::string y = slurp(dir / "y.npy");
  ASSERT_GT(y.size(), static_cast<std::size_t>(kSide * kSide));
  const std::size_t header = y.size() - static_cast<std::size_t>(kSide * kSide);
  EXPECT_EQ(header % 64, 0u) << "64 KiB of data after the header, not " << y.size() << " bytes";
  EXPECT_NE(y.substr(0, header).find("'descr': '|u1'"), std::string::npos);
  for (std::int64_t i = 0; i < kSide * kSide; ++i) {
    ASSERT_EQ(static_cast<unsigned char>(y[header + static_cast<std::size_t>(i)]), (i * 7) % 256)
        << i;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace glassbox::runner
