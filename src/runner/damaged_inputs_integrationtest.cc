// A corpus of damaged files, generated here from good ones, through every
// reader of user files: ETDump, ETRecord, program (.gbx, loaded and, if it
// loads, run), ONNX and .npy. Each damaged file must give a clean error (or
// be a valid file: a flipped weight is still a program), never a crash,
// hang or unbounded allocation; the ASan build runs the same corpus.
// Non-regular files (a FIFO, a device, a directory) are refused by every
// path-taking loader without reading them.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/aot/demo_model.h"
#include "frontends/onnx/importer.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/io/file.h"
#include "glassbox/npy/npy.h"
#include "glassbox/runner/program_runner.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"
#include "src/testing/status_matchers.h"

namespace glassbox {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

using Bytes = std::vector<std::uint8_t>;
// Reads `bytes` as one kind of file: OK, or the reader's error.
using Reader = std::function<Status(const Bytes&)>;

// The damaged variants of `good`: truncations at many lengths, single bit
// flips, and 32-bit words overwritten with huge values (length and offset
// fields claiming gigabytes), all from a fixed seed.
struct Damaged {
  std::vector<Bytes> truncated;
  std::vector<Bytes> mutated;  // may happen to be valid
};

Damaged damage(const Bytes& good, std::uint32_t seed) {
  Damaged out;
  for (std::size_t n = 0; n < good.size(); n += 1 + good.size() / 48) {
    out.truncated.emplace_back(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
  }
  std::mt19937 rng(seed);
  for (int i = 0; i < 150; ++i) {
    Bytes flipped = good;
    flipped[rng() % flipped.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    out.mutated.push_back(std::move(flipped));
  }
  for (const std::uint32_t huge : {0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u}) {
    for (int i = 0; i < 24 && good.size() >= 4; ++i) {
      Bytes forged = good;
      const std::size_t at = (rng() % (good.size() - 3)) & ~std::size_t{3};
      std::memcpy(forged.data() + at, &huge, 4);
      out.mutated.push_back(std::move(forged));
    }
  }
  return out;
}

// A clean error: one of the codes a reader uses for bad input, with a
// message.
void expect_clean(const Status& status, bool must_fail, const std::string& what) {
  if (status.ok()) {
    EXPECT_FALSE(must_fail) << what << ": accepted";
    return;
  }
  EXPECT_FALSE(status.message().empty()) << what;
  const Error code = status.error();
  EXPECT_TRUE(code == Error::kCorruptData || code == Error::kInvalidArgument ||
              code == Error::kNotSupported || code == Error::kVersionMismatch ||
              code == Error::kNotFound || code == Error::kOutOfResources ||
              code == Error::kMemoryAllocationFailed)
      << what << ": " << status.message();
}

void run_corpus(const std::string& kind, const Bytes& good, const Reader& read) {
  ASSERT_THAT(read(good), IsOk()) << kind << ": the good file must read";
  const Damaged corpus = damage(good, static_cast<std::uint32_t>(good.size()));
  for (std::size_t i = 0; i < corpus.truncated.size(); ++i) {
    expect_clean(read(corpus.truncated[i]), true,
                 kind + " truncated to " + std::to_string(corpus.truncated[i].size()));
  }
  for (std::size_t i = 0; i < corpus.mutated.size(); ++i) {
    expect_clean(read(corpus.mutated[i]), false, kind + " mutation " + std::to_string(i));
  }
}

Status status_of(const auto& result) { return result.ok() ? Status() : result.status(); }

Bytes testdata(const std::string& name) {
  StatusOr<Bytes> bytes = io::read_file(std::string(GLASSBOX_TESTDATA_DIR) + "/" + name);
  EXPECT_THAT(bytes, IsOk());
  return bytes.ok() ? *bytes : Bytes{};
}

exporter::ExecutorchProgramManager demo_program() {
  StatusOr<aot::Graph> graph = backends::demo::build_conv_relu_tan_model();
  EXPECT_THAT(graph, IsOk());
  static backends::demo::DemoBackend backend;
  exporter::Recipe recipe;
  recipe.generate_etrecord = true;
  recipe.partitioners.push_back(backends::demo::make_demo_partitioner(backend));
  StatusOr<exporter::ExecutorchProgramManager> program =
      exporter::export_model(std::move(*graph), recipe);
  EXPECT_THAT(program, IsOk());
  return std::move(program).value();
}

// Loads the program and, if it loads, runs it once on zeros. Most flips
// land in the weights and load; running the model (tens of ms) for each
// would take the suite's time, so only the first `runs_left` loaded ones
// run.
Status load_and_run(const Bytes& bytes, int* runs_left) {
  runtime::Diagnostics diag;
  Result<runtime::Program> program = runtime::Program::load(bytes, &diag);
  if (!program.ok()) return Status(program.error(), diag.message);
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &memory, &temp, nullptr, &diag);
  if (!method.ok()) return Status(method.error(), diag.message);
  if (*runs_left == 0) return Status();
  --*runs_left;
  for (std::size_t i = 0; i < method->num_inputs(); ++i) {
    const runtime::Tensor& in = method->input(i);
    const Bytes zeros(in.nbytes);
    if (method->set_input(i, zeros.data(), zeros.size()) != Error::kOk) {
      return Status(Error::kInvalidArgument, "input rejected");
    }
  }
  const Error run = method->execute(&diag);
  return run == Error::kOk ? Status() : Status(run, diag.message);
}

TEST(DamagedInputsTest, ProgramsLoadOrFailCleanly) {
  ASSERT_THAT(backends::prepare_backend_runtimes({}), IsOk());
  int runs_left = 4;
  run_corpus("program", demo_program().buffer(),
             [&runs_left](const Bytes& b) { return load_and_run(b, &runs_left); });
}

TEST(DamagedInputsTest, ETRecordsLoadOrFailCleanly) {
  StatusOr<etrecord::ETRecord> record = demo_program().get_etrecord();
  ASSERT_THAT(record, IsOk());
  StatusOr<Bytes> bytes = record->to_bytes();
  ASSERT_THAT(bytes, IsOk());
  run_corpus("etrecord", *bytes, [](const Bytes& b) {
    return status_of(etrecord::ETRecord::load_from_memory(b, "damaged.etrecord"));
  });
}

TEST(DamagedInputsTest, ETDumpsParseOrFailCleanly) {
  etdump::ETDumpGen gen;
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  gen.set_chain_instruction(ChainId(0), InstructionId(0));
  for (int i = 0; i < 8; ++i) {
    runtime::EventTracerEntry e = runtime::event_tracer_start_profiling_delegate(
        &gen, i % 2 ? "conv" : nullptr, DelegateDebugIntId(i));
    (void)runtime::event_tracer_end_profiling_delegate(&gen, e, "meta");
  }
  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  ASSERT_THAT(data, IsOk());
  const Bytes good(data->begin(), data->end());
  run_corpus("etdump", good,
             [](const Bytes& b) { return status_of(etdump::parse_etdump(b, "damaged.etdp")); });
}

TEST(DamagedInputsTest, OnnxModelsImportOrFailCleanly) {
  run_corpus("onnx", testdata("onnx/tiny_cnn.onnx"), [](const Bytes& b) {
    return status_of(frontends::onnx::import_onnx_from_memory(b, {}, "damaged.onnx"));
  });
}

TEST(DamagedInputsTest, NpyArraysParseOrFailCleanly) {
  run_corpus("npy", testdata("onnx/tiny_cnn.input.npy"),
             [](const Bytes& b) { return status_of(npy::parse(b, "damaged.npy")); });
}

// Every loader that takes a path refuses a FIFO (without blocking), a
// device (without reading it forever) and a directory.
TEST(DamagedInputsTest, NonRegularFilesAreRefusedByEveryLoader) {
  const std::string fifo = ::testing::TempDir() + "/damaged_inputs_fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::pair<std::string, std::function<Status(const std::string&)>>> loaders = {
      {"etdump", [](const std::string& p) { return status_of(etdump::load_etdump_file(p)); }},
      {"etrecord", [](const std::string& p) { return status_of(etrecord::ETRecord::load(p)); }},
      {"program", [](const std::string& p) { return status_of(io::read_file(p)); }},
      {"onnx", [](const std::string& p) { return status_of(frontends::onnx::import_onnx(p, {})); }},
      {"npy", [](const std::string& p) { return status_of(npy::read_file(p)); }},
  };
  for (const auto& [kind, load] : loaders) {
    for (const std::string& path : {fifo, std::string("/dev/zero"), ::testing::TempDir()}) {
      EXPECT_THAT(load(path), ErrorIs(Error::kAccessFailed, {"is not a regular file"}))
          << kind << " " << path;
    }
  }
  std::remove(fifo.c_str());
}

}  // namespace
}  // namespace glassbox
