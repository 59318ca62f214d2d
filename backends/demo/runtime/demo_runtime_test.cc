#include "backends/demo/runtime/demo_runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/aot/demo_model.h"
#include "glassbox/aot/to_backend.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/runtime/kernels/conv.h"
#include "glassbox/runtime/kernels/elementwise.h"
#include "src/testing/status_matchers.h"

namespace glassbox::backends::demo {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

using runtime::Tensor;

// The lowered demo model and what the runtime half needs to run it.
struct Lowered {
  aot::Graph source;
  aot::Node call;
};

Lowered lower(const char* identifiers) {
  StatusOr<aot::Graph> graph = build_conv_relu_tan_model();
  EXPECT_THAT(graph, IsOk());
  DemoBackend backend;
  const aot::Partitioner partitioner = make_demo_partitioner(backend);
  std::vector<aot::CompileSpec> specs{
      aot::CompileSpec::from_string(kIdentifiersSpecKey, identifiers)};
  StatusOr<aot::Graph> lowered = aot::to_backend(*graph, partitioner, specs);
  EXPECT_THAT(lowered, IsOk());
  return Lowered{*graph, lowered->nodes.at(0)};
}

// The source graph evaluated node by node with the portable kernels: the
// reference the delegate must reproduce.
std::vector<float> reference(const aot::Graph& graph, std::vector<float> x,
                             std::vector<std::int64_t> shape) {
  namespace k = runtime::kernels;
  for (const aot::Node& node : graph.nodes) {
    std::vector<float> y;
    if (node.op == "conv2d") {
      const aot::Value* w = graph.find_value(node.inputs[1]);
      const aot::Value* b = graph.find_value(node.inputs[2]);
      const k::Shape4 xs{shape[0], shape[1], shape[2], shape[3]};
      const k::Shape4 ws{w->shape[0], w->shape[1], w->shape[2], w->shape[3]};
      k::Conv2dParams p;
      p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
      const k::Shape4 ys = *k::conv2d_output_shape(xs, ws, p);
      y.resize(static_cast<std::size_t>(ys.numel()));
      std::vector<float> scratch(k::conv2d_scratch_bytes(xs, ws, p) / sizeof(float) + 1);
      EXPECT_EQ(k::conv2d(x.data(), xs, w->data.data(), ws, b->data.data(), p, y.data(), scratch),
                Error::kOk);
      shape = {ys.n, ys.c, ys.h, ys.w};
    } else {
      y.resize(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) {
        y[i] = node.op == "relu" ? std::max(x[i], 0.f) : std::sin(x[i]) / std::cos(x[i]);
      }
    }
    x = std::move(y);
  }
  return x;
}

struct RunResult {
  std::vector<float> output;
  etdump::ETDumpFile dump;
};

RunResult run(const Lowered& lowered, const std::vector<float>& input, const char* profiling) {
  EXPECT_EQ(register_demo_backend_runtime(), Error::kOk);
  runtime::MemoryAllocator memory, temp;
  etdump::ETDumpGen gen;
  gen.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  (void)gen.create_event_block("Execute");
  gen.set_chain_instruction(ChainId(0), InstructionId(0));
  std::vector<runtime::CompileSpecView> specs;
  std::vector<std::uint8_t> mode(profiling, profiling + std::strlen(profiling));
  specs.push_back({"profiling", mode});
  runtime::BackendInitContext init(&memory, &gen, "forward");
  DemoBackendRuntime& backend = demo_backend_runtime();
  Result<runtime::DelegateHandle*> handle =
      backend.init(init, lowered.call.delegate->processed_bytes, specs);
  EXPECT_THAT(handle, IsOk());

  const std::int64_t in_sizes[] = {4, 3, 64, 64};
  const std::int64_t out_sizes[] = {4, 32, 64, 64};
  std::vector<float> in_data = input;
  std::vector<float> out_data(4 * 32 * 64 * 64);
  // Member by member: Tensor grows members (dynamic shapes) that these
  // static tensors leave at their defaults.
  const auto tensor = [](Span<const std::int64_t> sizes, std::vector<float>& data) {
    Tensor t;
    t.sizes = sizes;
    t.data = data.data();
    t.nbytes = data.size() * sizeof(float);
    return t;
  };
  Tensor in = tensor(in_sizes, in_data);
  Tensor out = tensor(out_sizes, out_data);
  Tensor* ins[] = {&in};
  Tensor* outs[] = {&out};
  runtime::BackendExecutionContext exec(&temp, &gen, "forward");
  EXPECT_EQ(backend.execute(exec, *handle, ins, outs), Error::kOk);
  StatusOr<etdump::ETDumpFile> file = etdump::parse_etdump(*gen.get_etdump_data(), "t");
  EXPECT_THAT(file, IsOk());
  return RunResult{out_data, *file};
}

std::vector<float> random_input() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> x(4 * 3 * 64 * 64);
  for (float& v : x) v = dist(rng);
  return x;
}

TEST(DemoRuntimeTest, ComputesWhatTheSourceGraphComputes) {
  const Lowered lowered = lower("generated");
  const std::vector<float> x = random_input();
  const std::vector<float> expected = reference(lowered.source, x, {4, 3, 64, 64});
  const RunResult result = run(lowered, x, "realtime");
  ASSERT_EQ(result.output.size(), expected.size());
  double max_error = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    // tan(x) computed as sin/cos in both: only rounding differs.
    max_error = std::max(max_error, std::abs(double(result.output[i]) - expected[i]) /
                                        (1.0 + std::abs(double(expected[i]))));
  }
  EXPECT_LT(max_error, 1e-5);
}

// The events carry the identifiers the AOT half put in its map.
void expect_events(const RunResult& result, bool string_ids) {
  std::vector<std::string> ids, labels;
  std::size_t outputs = 0;
  for (const etdump::Event& e : result.dump.runs.at(0).events) {
    if (const etdump::ProfileEvent* p = e.profile()) {
      ids.push_back(p->delegate_debug_id_str ? *p->delegate_debug_id_str
                                             : std::to_string(p->delegate_debug_id_int.value));
      labels.emplace_back(p->delegate_debug_metadata->begin(), p->delegate_debug_metadata->end());
      EXPECT_LE(p->start_time, p->end_time);
      EXPECT_EQ(p->instruction_id, InstructionId(0));
    } else if (e.debug() != nullptr) {
      ++outputs;
    }
  }
  const std::vector<std::string> expected_ids =
      string_ids
          ? std::vector<std::string>{"conv_relu_1", "conv_relu_2", "tan.sin", "tan.cos", "tan.div"}
          : std::vector<std::string>{"0", "1", "2", "3", "4"};
  EXPECT_EQ(ids, expected_ids);
  EXPECT_EQ(labels, (std::vector<std::string>{"conv_relu", "conv_relu", "sin", "cos", "div"}));
  EXPECT_EQ(outputs, 5u) << "one intermediate output per op";
}

TEST(DemoRuntimeTest, RealTimeEventsUseTheMapIdentifiers) {
  expect_events(run(lower("generated"), random_input(), "realtime"), false);
  expect_events(run(lower("string"), random_input(), "realtime"), true);
}

TEST(DemoRuntimeTest, PostTimeEventsUseTheMapIdentifiers) {
  expect_events(run(lower("generated"), random_input(), "posttime"), false);
  expect_events(run(lower("string"), random_input(), "posttime"), true);
}

// A board's counter (a Cortex-M's SysTick, tests/baremetal/demo_main.cc):
// 1,000 ticks a read here, at 40 ns a tick.
Ticks g_board_ticks = 0;
Ticks read_board_counter() { return g_board_ticks += 1000; }

TEST(DemoRuntimeTest, ABoardCounterIsTheDelegateClock) {
  const DemoCycleCounter counter{read_board_counter, TickRatio{40, 1}};
  demo_backend_runtime().set_cycle_counter(&counter);
  g_board_ticks = 0;
  // Real time asked for: the counter's ticks can only be logged post-time.
  const RunResult result = run(lower("generated"), random_input(), "realtime");
  demo_backend_runtime().set_cycle_counter(nullptr);

  const std::vector<etdump::DelegateTimeScale> expected = {
      {kDemoBackendName, TickRatio{40, 1}, {}}};
  EXPECT_EQ(result.dump.delegate_time_scales, expected);
  std::vector<Ticks> starts, ends;
  for (const etdump::Event& e : result.dump.runs.at(0).events) {
    if (const etdump::ProfileEvent* p = e.profile()) {
      starts.push_back(p->start_time);
      ends.push_back(p->end_time);
    }
  }
  EXPECT_EQ(starts, (std::vector<Ticks>{1000, 3000, 5000, 7000, 9000}));
  EXPECT_EQ(ends, (std::vector<Ticks>{2000, 4000, 6000, 8000, 10000}));

  // Cleared, the spec decides again: the tracer's clock, no scale.
  const RunResult after = run(lower("generated"), random_input(), "realtime");
  EXPECT_TRUE(after.dump.delegate_time_scales.empty());
  EXPECT_EQ(g_board_ticks, 10000u) << "the counter is read no more";
}

TEST(DemoRuntimeTest, CorruptBlobsAreErrorsNotCrashes) {
  const Lowered lowered = lower("int");
  const std::vector<std::uint8_t>& bytes = lowered.call.delegate->processed_bytes;
  DemoBackendRuntime backend;
  // One reused buffer: fresh heap chunks per attempt would spend the test
  // in the kernel clearing pages.
  std::vector<std::uint8_t> arena(4 << 20);
  for (std::size_t n = 0; n < bytes.size(); n += 1 + n / 64) {
    runtime::MemoryAllocator memory(arena);
    runtime::BackendInitContext init(&memory, nullptr, "forward");
    Result<runtime::DelegateHandle*> h =
        backend.init(init, Span<const std::uint8_t>(bytes.data(), n), {});
    EXPECT_FALSE(h.ok()) << "truncated at " << n;
  }
  std::mt19937 rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<std::uint8_t> flipped = bytes;
    // Flip within the header and op table (the weights take any value).
    flipped[rng() % 200] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    runtime::MemoryAllocator memory(arena);
    runtime::BackendInitContext init(&memory, nullptr, "forward");
    (void)backend.init(init, flipped, {});  // must not crash
  }
  runtime::MemoryAllocator memory;
  runtime::BackendInitContext init(&memory, nullptr, "forward");
  const std::uint8_t bad_mode[] = {'s', 'o', 'o', 'n'};
  const runtime::CompileSpecView spec{"profiling", bad_mode};
  EXPECT_THAT(backend.init(init, bytes, Span<const runtime::CompileSpecView>(&spec, 1)),
              ErrorIs(Error::kInvalidArgument));
}

}  // namespace
}  // namespace glassbox::backends::demo
