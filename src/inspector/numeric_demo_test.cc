// Numeric debugging proven on the real pipeline: the demo model lowered to the
// demo backend, its ETRecord given portable reference outputs, run once at
// debug level intermediates with the reference input; with the backend's
// cos perturbed, the first failure must be the tan decomposition (which
// holds cos) and nothing before it; without the fault, nothing fails.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/aot/demo_model.h"
#include "backends/demo/runtime/demo_runtime.h"
#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etrecord/reference_runner.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/inspector/numeric.h"
#include "glassbox/runtime/delegate_specs.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::IsOk;

constexpr std::uint32_t kSeed = 7;
// Every op's output plus the method's, with room to spare (the largest
// activation is 4x32x64x64 float32 = 2 MiB).
constexpr std::size_t kDebugBufferBytes = std::size_t{32} << 20;

template <typename T>
T ok(StatusOr<T> result) {
  EXPECT_THAT(result, IsOk());
  if (!result.ok()) std::abort();
  return std::move(result).value();
}

struct Lowered {
  exporter::ExecutorchProgramManager program;
  etrecord::ETRecord record;
};

Lowered lower(const std::string& ids, const std::string& perturb) {
  static backends::demo::DemoBackend backend;
  const aot::Graph graph = ok(backends::demo::build_conv_relu_tan_model());
  exporter::Recipe recipe;
  recipe.generate_etrecord = true;
  recipe.partitioners.push_back(backends::demo::make_demo_partitioner(backend));
  recipe.compile_specs.push_back(aot::CompileSpec::from_string(backends::kIdentifiersSpecKey, ids));
  if (!perturb.empty()) {
    recipe.compile_specs.push_back(
        aot::CompileSpec::from_string(runtime::kPerturbSpecKey, perturb));
  }
  exporter::ExecutorchProgramManager program = ok(exporter::export_model(graph, recipe));
  etrecord::ETRecord record = ok(program.get_etrecord());
  EXPECT_TRUE(etrecord::attach_reference(graph, ok(etrecord::seeded_reference_inputs(graph, kSeed)),
                                         &record)
                  .ok());
  return {std::move(program), std::move(record)};
}

struct CapturedRun {
  etdump::ETDumpFile dump;
  std::vector<std::uint8_t> storage = std::vector<std::uint8_t>(kDebugBufferBytes);
  std::size_t used = 0;
  std::uint64_t tensor_data_dropped = 0;
  std::span<const std::uint8_t> debug_data() const { return {storage.data(), used}; }
};

// One execution fed the ETRecord's own reference input.
void run(const Lowered& lowered, CapturedRun* out) {
  ASSERT_EQ(backends::demo::register_demo_backend_runtime(), Error::kOk);
  runtime::Diagnostics diag;
  Result<runtime::Program> program = runtime::Program::load(lowered.program.buffer(), &diag);
  ASSERT_THAT(program, IsOk()) << diag.message;
  Result<etdump::BufferDataSink> sink = etdump::BufferDataSink::create(out->storage);
  ASSERT_THAT(sink, IsOk());
  etdump::ETDumpGen gen;
  gen.set_program_fingerprint(program->fingerprint());
  gen.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  gen.set_data_sink(&*sink);
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &memory, &temp, &gen, &diag);
  ASSERT_THAT(method, IsOk()) << diag.message;
  const std::vector<float>& x = lowered.record.reference_inputs.at(0).data;
  ASSERT_EQ(method->set_input(0, x.data(), x.size() * sizeof(float)), Error::kOk);
  ASSERT_EQ(method->execute(&diag), Error::kOk) << diag.message;
  out->dump = ok(etdump::parse_etdump(*gen.get_etdump_data(), "numeric"));
  out->used = sink->used_bytes();
  out->tensor_data_dropped = gen.tensor_data_dropped();
}

std::string text(const aot::DelegateDebugIdentifier& id) { return identifier_text(id); }

// The identifier the demo backend gave tan's cos, from the delegate map.
std::string cos_identifier(const etrecord::ETRecord& record, const std::string& ids) {
  if (ids == "string") return "tan.cos";
  // generated and int: tan's three ops are numbered sin, cos, div.
  std::vector<std::string> tan_ids;
  const auto& entry = record.delegate_map.at(std::string(aot::kForwardMethod)).begin()->second;
  for (const auto& [id, handles] : *entry.delegate_map) {
    if (handles == std::vector<DebugHandle>{DebugHandle(5)}) tan_ids.push_back(text(id));
  }
  EXPECT_EQ(tan_ids.size(), 3u);
  return tan_ids.size() == 3 ? tan_ids[1] : "";
}

class NumericDemoTest : public ::testing::TestWithParam<const char*> {};
INSTANTIATE_TEST_SUITE_P(Identifiers, NumericDemoTest, ::testing::Values("generated", "string"));

TEST_P(NumericDemoTest, CaptureHoldsEveryOperatorAndDelegateOutputWithData) {
  const Lowered lowered = lower(GetParam(), "");
  CapturedRun r;
  run(lowered, &r);
  EXPECT_EQ(r.tensor_data_dropped, 0u);
  const etdump::RunData& execute = r.dump.runs.at(1);
  ASSERT_EQ(execute.name, "Execute");
  std::size_t delegate_outputs = 0, instruction_outputs = 0, program_outputs = 0;
  for (const etdump::Event& e : execute.events) {
    const etdump::DebugEvent* d = e.debug();
    if (d == nullptr) continue;
    ASSERT_TRUE(d->value.tensor.has_value());
    EXPECT_GE(d->value.tensor->offset, 0) << "tensor data is in the sink";
    EXPECT_TRUE(etdump::read_tensor_values(*d->value.tensor, r.debug_data()).ok());
    if (d->value.output.value_or(false)) {
      ++program_outputs;
    } else if (d->delegate_debug_id_int.is_set() || d->delegate_debug_id_str.has_value()) {
      ++delegate_outputs;
    } else {
      ++instruction_outputs;
    }
  }
  EXPECT_EQ(delegate_outputs, 5u) << "conv_relu x2, sin, cos, div";
  EXPECT_EQ(instruction_outputs, 1u) << "the delegate call's output";
  EXPECT_EQ(program_outputs, 1u);
}

TEST_P(NumericDemoTest, WithoutTheFaultNothingIsMarked) {
  const Lowered lowered = lower(GetParam(), "");
  CapturedRun r;
  run(lowered, &r);
  const NumericReport report = ok(compare_numerics(r.dump, lowered.record, r.debug_data()));
  EXPECT_FALSE(report.first_failure.has_value()) << *render_numeric(report, Format::kTable);
  ASSERT_EQ(report.rows.size(), 5u) << "conv_relu, conv_relu, tan (sin+cos+div), call, output";
  for (const NumericRow& row : report.rows) {
    EXPECT_EQ(row.status, NumericStatus::kCompared) << row.note;
    EXPECT_FALSE(row.exceeds);
  }
}

TEST_P(NumericDemoTest, PerturbedCosIsTheFirstFailureAndNothingEarlierIs) {
  const std::string ids = GetParam();
  const Lowered lowered = lower(ids, ids == "string" ? "tan.cos" : "3");  // cos
  CapturedRun r;
  run(lowered, &r);
  const NumericReport report = ok(compare_numerics(r.dump, lowered.record, r.debug_data()));
  const std::string table = *render_numeric(report, Format::kTable);
  ASSERT_TRUE(report.first_failure.has_value()) << table;
  const NumericRow& first = report.rows[*report.first_failure];
  EXPECT_EQ(first.kind, NumericRowKind::kDelegateInternal) << table;
  EXPECT_EQ(first.op_names, std::vector<std::string>{"tan"});
  EXPECT_EQ(first.op_types, std::vector<std::string>{"tan"});
  std::vector<std::string> identifiers;
  for (const auto& id : first.identifiers) identifiers.push_back(text(id));
  EXPECT_NE(std::find(identifiers.begin(), identifiers.end(), cos_identifier(lowered.record, ids)),
            identifiers.end())
      << table;
  for (std::size_t i = 0; i < *report.first_failure; ++i) {
    EXPECT_FALSE(report.rows[i].exceeds) << "row " << i << "\n" << table;
    EXPECT_EQ(report.rows[i].status, NumericStatus::kCompared) << table;
  }
  // conv_relu groups are compared at their relu, within the threshold.
  EXPECT_EQ(report.rows[0].reference_op, report.rows[0].op_names.back());
  EXPECT_EQ(report.rows[0].op_types, (std::vector<std::string>{"conv2d", "relu"}));
  const auto doc = nlohmann::json::parse(*render_numeric(report, Format::kJson));
  EXPECT_EQ(doc["first_failure"], *report.first_failure);
  EXPECT_NE(table.find("first failure"), std::string::npos);
}

// An empty fault is a typo, refused at export by the backend's spec parser.
TEST(DemoPerturbationTest, AnEmptyPerturbSpecIsRefusedAtExport) {
  static backends::demo::DemoBackend backend;
  exporter::Recipe recipe;
  recipe.partitioners.push_back(backends::demo::make_demo_partitioner(backend));
  recipe.compile_specs.push_back(aot::CompileSpec::from_string(runtime::kPerturbSpecKey, ""));
  const StatusOr<exporter::ExecutorchProgramManager> program =
      exporter::export_model(ok(backends::demo::build_conv_relu_tan_model()), recipe);
  ASSERT_FALSE(program.ok());
  EXPECT_NE(program.status().message().find("perturb"), std::string::npos)
      << program.status().message();
}

// The fault follows the identifier: the first fused conv_relu (generated
// identifier 0) is row 0; an identifier no operator has changes nothing
// (`glassbox lower --perturb` refuses it before writing anything).
TEST(DemoPerturbationTest, TheFaultFollowsTheIdentifier) {
  const Lowered first = lower("generated", "0");
  CapturedRun r;
  run(first, &r);
  const NumericReport report = ok(compare_numerics(r.dump, first.record, r.debug_data()));
  ASSERT_TRUE(report.first_failure.has_value());
  EXPECT_EQ(*report.first_failure, 0u) << "the first conv_relu";
  const Lowered none = lower("generated", "99");
  CapturedRun r2;
  run(none, &r2);
  EXPECT_FALSE(ok(compare_numerics(r2.dump, none.record, r2.debug_data())).first_failure);
}

}  // namespace
}  // namespace glassbox::inspector
