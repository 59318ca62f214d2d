// End to end through both halves of the demo delegate: build the demo
// model, lower it (AOT half), emit a program, load and run it with the
// runtime (runtime half) under ETDumpGen, then check the outputs against
// the same graph run on portable kernels only, and the ETDump's events
// against the ETRecord's maps.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/aot/demo_model.h"
#include "backends/demo/aot/demo_program.h"
#include "backends/demo/runtime/demo_runtime.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/inspector/views.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"
#include "src/testing/status_matchers.h"

namespace glassbox::backends::demo {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

const std::string kForward(aot::kForwardMethod);

exporter::ExecutorchProgramManager export_demo(const char* ids, const char* profiling,
                                               bool delegated, const char* clock = nullptr) {
  StatusOr<aot::Graph> graph = build_conv_relu_tan_model();
  EXPECT_THAT(graph, IsOk());
  static DemoBackend backend;
  exporter::Recipe recipe;
  recipe.generate_etrecord = true;
  if (delegated) {
    recipe.partitioners.push_back(make_demo_partitioner(backend));
    recipe.compile_specs.push_back(aot::CompileSpec::from_string(kIdentifiersSpecKey, ids));
    recipe.compile_specs.push_back(aot::CompileSpec::from_string("profiling", profiling));
    if (clock != nullptr) {
      recipe.compile_specs.push_back(aot::CompileSpec::from_string(kDemoClockSpecKey, clock));
    }
  }
  StatusOr<exporter::ExecutorchProgramManager> program =
      exporter::export_model(std::move(*graph), recipe);
  EXPECT_THAT(program, IsOk());
  return std::move(program).value();
}

std::vector<float> demo_input() {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> x(4 * 3 * 64 * 64);
  for (float& v : x) v = dist(rng);
  return x;
}

struct RunOutput {
  std::vector<float> output;
  etdump::ETDumpFile dump;
};

RunOutput run(const std::vector<std::uint8_t>& bytes) {
  EXPECT_EQ(register_demo_backend_runtime(), Error::kOk);
  runtime::Diagnostics diag;
  Result<runtime::Program> program = runtime::Program::load(bytes, &diag);
  EXPECT_THAT(program, IsOk()) << diag.message;
  etdump::ETDumpGen gen;
  gen.set_program_fingerprint(program->fingerprint());
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &memory, &temp, &gen, &diag);
  EXPECT_THAT(method, IsOk()) << diag.message;
  const std::vector<float> x = demo_input();
  EXPECT_EQ(method->set_input(0, x.data(), x.size() * sizeof(float)), Error::kOk);
  EXPECT_EQ(method->execute(&diag), Error::kOk) << diag.message;
  const runtime::Tensor& y = method->output(0);
  RunOutput result;
  result.output.assign(y.float_data(), y.float_data() + y.numel());
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*gen.get_etdump_data(), "e2e");
  EXPECT_THAT(dump, IsOk());
  result.dump = *dump;
  return result;
}

// Relative error against the portable run; both compute tan as sin/cos
// over the same conv sums, so only summation order and rounding differ.
double max_relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::abs(double(a[i]) - b[i]) / (1.0 + std::abs(double(b[i]))));
  }
  return worst;
}

class DemoEndToEndTest : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

INSTANTIATE_TEST_SUITE_P(IdsAndLogModes, DemoEndToEndTest,
                         ::testing::Combine(::testing::Values("generated", "int", "string"),
                                            ::testing::Values("realtime", "posttime")),
                         [](const auto& param_info) {
                           return std::string(std::get<0>(param_info.param)) + "_" +
                                  std::get<1>(param_info.param);
                         });

TEST_P(DemoEndToEndTest, DelegatedRunMatchesPortableAndMapsEveryEvent) {
  const auto [ids, mode] = GetParam();
  const exporter::ExecutorchProgramManager delegated = export_demo(ids, mode, true);
  const exporter::ExecutorchProgramManager portable = export_demo(ids, mode, false);
  const RunOutput d = run(delegated.buffer());
  const RunOutput p = run(portable.buffer());
  EXPECT_LT(max_relative_error(d.output, p.output), 1e-5);

  // The delegate is instruction 0; its map's identifiers are what we log.
  const aot::InstructionDelegateMap& delegates = delegated.delegate_map().at(kForward);
  ASSERT_EQ(delegates.size(), 1u);
  const auto& [instruction, entry] = *delegates.begin();
  ASSERT_TRUE(entry.delegate_map.has_value());
  std::set<std::string> mapped;
  for (const auto& [id, handles] : *entry.delegate_map) {
    mapped.insert(std::holds_alternative<std::int64_t>(id)
                      ? std::to_string(std::get<std::int64_t>(id))
                      : std::get<std::string>(id));
  }
  ASSERT_EQ(mapped.size(), 5u) << "conv_relu x2, sin, cos, div";

  ASSERT_EQ(d.dump.runs.size(), 2u) << "Default (load) and one Execute";
  const etdump::RunData& execute = d.dump.runs[1];
  EXPECT_EQ(execute.name, "Execute");
  std::set<std::string> logged;
  int delegate_calls = 0;
  for (const etdump::Event& e : execute.events) {
    const etdump::ProfileEvent* p_event = e.profile();
    if (p_event == nullptr) continue;
    if (p_event->name == "DELEGATE_CALL") {
      ++delegate_calls;
      EXPECT_EQ(p_event->instruction_id, instruction);
    } else if (p_event->name == "Method::execute") {
      EXPECT_EQ(p_event->instruction_id, kUnsetInstructionId);
    } else if (!p_event->name.has_value()) {
      EXPECT_EQ(p_event->instruction_id, instruction);
      EXPECT_EQ(p_event->time_source, etdump::TimeSource::kMeasured);
      logged.insert(p_event->delegate_debug_id_str
                        ? *p_event->delegate_debug_id_str
                        : std::to_string(p_event->delegate_debug_id_int.value));
    }
  }
  EXPECT_EQ(delegate_calls, 1);
  EXPECT_EQ(logged, mapped) << "every logged identifier is in the map and vice versa";
  EXPECT_EQ(d.dump.program_fingerprint, delegated.fingerprint());
}

// A delegate that counts cycles: the dump records its scale, and the
// Inspector turns each delegate event's cycles back into nanoseconds.
TEST(DemoEndToEndCyclesTest, DeclaredTimeScaleIsRecordedAndApplied) {
  const exporter::ExecutorchProgramManager program = export_demo("int", "realtime", true, "cycles");
  const RunOutput d = run(program.buffer());
  const std::vector<etdump::DelegateTimeScale> expected = {{kDemoBackendName, kDemoCycleTime, {}}};
  ASSERT_EQ(d.dump.delegate_time_scales, expected);

  StatusOr<etrecord::ETRecord> record = program.get_etrecord();
  ASSERT_THAT(record, IsOk());
  StatusOr<inspector::Inspector> insp = inspector::Inspector::create(d.dump, &*record);
  ASSERT_THAT(insp, IsOk());
  // Each delegate event's one sample is its raw cycle count times 4 ns.
  std::map<std::int64_t, double> raw_cycles;
  for (const etdump::Event& e : d.dump.runs.at(1).events) {
    const etdump::ProfileEvent* p = e.profile();
    if (p != nullptr && p->delegate_debug_id_int.is_set()) {
      EXPECT_EQ(p->time_source, etdump::TimeSource::kMeasured);
      raw_cycles[p->delegate_debug_id_int.value] +=
          static_cast<double>(p->end_time - p->start_time);
    }
  }
  ASSERT_EQ(raw_cycles.size(), 5u) << "conv_relu x2, sin, cos, div";
  std::size_t scaled = 0;
  for (const inspector::EventGroup& g : insp->groups()) {
    if (g.role != inspector::EventRole::kDelegateInternal) {
      EXPECT_EQ(g.time_scale, inspector::TimeScaleSource::kClock) << g.name;
      continue;
    }
    ++scaled;
    EXPECT_EQ(g.backend, kDemoBackendName);
    EXPECT_EQ(g.time_scale, inspector::TimeScaleSource::kDump);
    ASSERT_EQ(g.samples.size(), 1u);
    EXPECT_DOUBLE_EQ(g.samples[0], 4.0 * raw_cycles.at(std::get<std::int64_t>(*g.identifier)));
  }
  EXPECT_EQ(scaled, 5u);
  ASSERT_EQ(insp->time().delegate_scales.size(), 1u);
  EXPECT_EQ(insp->time().delegate_scales[0].source, inspector::TimeScaleSource::kDump);

  // The cycles count the same time the DELEGATE_CALL around them does: the
  // converted inner events fit inside it (up to a cycle of rounding per
  // timestamp), which they would not with a larger scale.
  for (const inspector::ReconcileRow& row : inspector::reconcile_view(*insp)) {
    if (row.kind == inspector::ReconcileKind::kDelegateGap) {
      EXPECT_GE(row.stats.mean, -2.0 * 5 * 4) << "inner events exceed their DELEGATE_CALL";
    }
  }
  // In the timeline the inner events start with their DELEGATE_CALL, not
  // at the counter's own origin.
  double call_start = -1, first_inner = -1;
  for (const inspector::Occurrence& o : insp->occurrences()) {
    const inspector::EventGroup& g = insp->groups()[o.group];
    if (g.role == inspector::EventRole::kDelegateCall) call_start = o.start;
    if (g.role == inspector::EventRole::kDelegateInternal &&
        (first_inner < 0 || o.start < first_inner)) {
      first_inner = o.start;
    }
  }
  EXPECT_DOUBLE_EQ(first_inner, call_start);
}

TEST(DemoEndToEndCyclesTest, BadClockSpecIsRefusedAtLoad) {
  const exporter::ExecutorchProgramManager program = export_demo("int", "realtime", true, "hours");
  ASSERT_EQ(register_demo_backend_runtime(), Error::kOk);
  runtime::Diagnostics diag;
  Result<runtime::Program> loaded = runtime::Program::load(program.buffer(), &diag);
  ASSERT_THAT(loaded, IsOk());
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*loaded, "forward", &memory, &temp, nullptr, &diag);
  EXPECT_THAT(method, ErrorIs(Error::kInvalidArgument, {"compile spec 'clock'"}));
}

TEST(DemoEndToEndBadInputTest, CorruptProgramsAreClearErrors) {
  const exporter::ExecutorchProgramManager program = export_demo("int", "realtime", true);
  const std::vector<std::uint8_t>& good = program.buffer();
  ASSERT_EQ(register_demo_backend_runtime(), Error::kOk);
  runtime::Diagnostics diag;
  for (std::size_t n = 0; n < good.size(); n += 1 + n / 16) {
    std::vector<std::uint8_t> truncated(good.begin(),
                                        good.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(runtime::Program::load(truncated, &diag).ok()) << "length " << n;
  }

  // A backend nobody registered.
  std::vector<std::uint8_t> renamed = good;
  const std::string name = kDemoBackendName;
  auto at = std::search(renamed.begin(), renamed.end(), name.begin(), name.end());
  ASSERT_NE(at, renamed.end());
  at[name.size() - 1] = 'X';
  Result<runtime::Program> missing = runtime::Program::load(renamed, &diag);
  EXPECT_THAT(missing, ErrorIs(Error::kNotFound));
  EXPECT_NE(std::string(diag.message).find("DemoBackenX"), std::string::npos) << diag.message;

  // Processed bytes the runtime half cannot parse: the method fails to load.
  std::vector<std::uint8_t> bad_blob = good;
  const std::string magic(kDemoMagic, 4);
  auto blob = std::search(bad_blob.begin(), bad_blob.end(), magic.begin(), magic.end());
  ASSERT_NE(blob, bad_blob.end());
  blob[0] = 'X';
  Result<runtime::Program> loaded = runtime::Program::load(bad_blob, &diag);
  ASSERT_THAT(loaded, IsOk()) << diag.message;
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*loaded, "forward", &memory, &temp, nullptr, &diag);
  EXPECT_FALSE(method.ok());
  EXPECT_NE(std::string(diag.message).find("DemoBackend"), std::string::npos) << diag.message;
}

// Conv parameters that parse but whose output size overflows, or does not
// match the planned tensors: the method fails to load, naming the delegate,
// instead of writing out of bounds at run time.
TEST(DemoEndToEndBadInputTest, ConvParametersAreCheckedAgainstThePlanAtLoad) {
  const exporter::ExecutorchProgramManager program = export_demo("int", "realtime", true);
  const std::vector<std::uint8_t>& good = program.buffer();
  ASSERT_EQ(register_demo_backend_runtime(), Error::kOk);
  const std::string magic(kDemoMagic, 4);
  const auto blob_at = std::search(good.begin(), good.end(), magic.begin(), magic.end());
  ASSERT_NE(blob_at, good.end());
  const std::size_t offset = static_cast<std::size_t>(blob_at - good.begin());
  std::uint32_t length = 0;  // the FlatBuffers vector's length precedes its bytes
  std::memcpy(&length, good.data() + offset - 4, 4);
  ASSERT_LE(offset + length, good.size());
  StatusOr<DemoProgram> decoded =
      decode_demo_program(std::span<const std::uint8_t>(good.data() + offset, length));
  ASSERT_THAT(decoded, IsOk());

  constexpr std::int64_t kHuge = std::int64_t{1} << 60;
  const std::vector<std::function<void(DemoConvParams&)>> corruptions = {
      [](DemoConvParams& c) {
        c.stride[1] = 262145;
        c.padding[0] = kHuge + 1;
      },
      [](DemoConvParams& c) {
        c.padding = {4 * kHuge, 4 * kHuge};
      },
      [](DemoConvParams& c) {
        c.dilation = {4 * kHuge, 1};
      },
      [](DemoConvParams& c) {
        c.stride = {2, 2};
      },  // fits, but not the planned output
  };
  for (std::size_t k = 0; k < corruptions.size(); ++k) {
    DemoProgram bad = *decoded;
    corruptions[k](bad.ops.at(0).conv);
    const std::vector<std::uint8_t> blob = encode_demo_program(bad);
    ASSERT_EQ(blob.size(), length);
    std::vector<std::uint8_t> bytes = good;
    std::copy(blob.begin(), blob.end(), bytes.begin() + static_cast<std::ptrdiff_t>(offset));
    runtime::Diagnostics diag;
    Result<runtime::Program> loaded = runtime::Program::load(bytes, &diag);
    ASSERT_THAT(loaded, IsOk()) << diag.message;
    runtime::MemoryAllocator memory, temp;
    Result<runtime::Method> method =
        runtime::Method::load(*loaded, "forward", &memory, &temp, nullptr, &diag);
    EXPECT_FALSE(method.ok()) << "corruption " << k;
    EXPECT_NE(std::string(diag.message).find("delegate 0"), std::string::npos) << diag.message;
  }
}

}  // namespace
}  // namespace glassbox::backends::demo
