// Numeric debugging on synthetic inputs: the comparators (non-finite rules
// included) and the units compare_numerics builds from a hand-made dump.

#include "glassbox/inspector/numeric.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "glassbox/aot/ops.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::ErrorIs;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(NumericMetricsTest, IdenticalValues) {
  const std::vector<double> a = {1, -2, 3};
  const std::vector<float> b = {1, -2, 3};
  const Comparison c = compare_values(a, b);
  EXPECT_EQ(c.max_abs, 0);
  EXPECT_EQ(c.l1, 0);
  EXPECT_EQ(c.mse, 0);
  EXPECT_EQ(c.snr_db, kInf);
  EXPECT_DOUBLE_EQ(c.cosine, 1);
}

TEST(NumericMetricsTest, KnownErrors) {
  const std::vector<double> a = {1, 2, 3, 5};
  const std::vector<float> b = {1, 2, 3, 4};
  const Comparison c = compare_values(a, b);
  EXPECT_DOUBLE_EQ(c.max_abs, 1);
  EXPECT_DOUBLE_EQ(c.l1, 0.25);
  EXPECT_DOUBLE_EQ(c.mse, 0.25);
  EXPECT_DOUBLE_EQ(c.snr_db, 10 * std::log10(30.0 / 1.0));
  EXPECT_DOUBLE_EQ(c.cosine, 34 / std::sqrt(30.0 * 39.0));  // 1+4+9+20
}

TEST(NumericMetricsTest, InfinityIsNeverHidden) {
  // ExecuTorch's nan_to_num would turn this inf into a large finite number.
  const std::vector<double> a = {kInf, 1};
  const std::vector<float> b = {1, 1};
  const Comparison c = compare_values(a, b);
  EXPECT_EQ(c.runtime_nonfinite.inf, 1u);
  EXPECT_EQ(c.nonfinite_mismatches, 1u);
  EXPECT_EQ(c.max_abs, kInf);
  EXPECT_EQ(c.l1, kInf);
  EXPECT_EQ(c.snr_db, -kInf);
  EXPECT_TRUE(std::isnan(c.cosine));
  EXPECT_TRUE(exceeds_threshold(Comparator::kCosine, c.cosine, 0.5));
}

TEST(NumericMetricsTest, AgreeingNonFiniteValuesAreCountedNotFailed) {
  const std::vector<double> a = {kNaN, -kInf, 2};
  const std::vector<float> b = {std::nanf(""), -std::numeric_limits<float>::infinity(), 2};
  const Comparison c = compare_values(a, b);
  EXPECT_EQ(c.nonfinite_mismatches, 0u);
  EXPECT_EQ(c.runtime_nonfinite, (NonFinite{1, 1}));
  EXPECT_EQ(c.reference_nonfinite, (NonFinite{1, 1}));
  EXPECT_EQ(c.max_abs, 0);
  // NaN against a number is a mismatch; so are opposite infinities.
  EXPECT_EQ(compare_values(std::vector<double>{kNaN}, std::vector<float>{0}).nonfinite_mismatches,
            1u);
  EXPECT_EQ(compare_values(std::vector<double>{kInf},
                           std::vector<float>{-std::numeric_limits<float>::infinity()})
                .nonfinite_mismatches,
            1u);
}

TEST(NumericMetricsTest, ThresholdDirections) {
  EXPECT_TRUE(exceeds_threshold(Comparator::kMaxAbs, 0.1, 0.01));
  EXPECT_FALSE(exceeds_threshold(Comparator::kMse, 0.001, 0.01));
  EXPECT_TRUE(exceeds_threshold(Comparator::kSnr, 20, 40));
  EXPECT_FALSE(exceeds_threshold(Comparator::kSnr, kInf, 40));
  EXPECT_TRUE(exceeds_threshold(Comparator::kL1, kNaN, 1));
}

TEST(NumericMetricsTest, ParseComparators) {
  EXPECT_EQ(*parse_comparators("all"), all_comparators());
  EXPECT_EQ(*parse_comparators("snr,max_abs,snr"),
            (std::vector<Comparator>{Comparator::kMaxAbs, Comparator::kSnr}));
  EXPECT_THAT(parse_comparators("max_abs,,l1"), ErrorIs(Error::kInvalidArgument));
  const auto bad = parse_comparators("l2");
  EXPECT_THAT(bad, ErrorIs(Error::kInvalidArgument));
  EXPECT_NE(bad.message().find("\"l2\""), std::string::npos);
}

// A hand-made run: conv (h1) as a kernel at instruction 0, then a delegate
// at instruction 1 running relu (h2, id 0) and tan decomposed into ids 1 and
// 2 (both h3), an identifier the map lacks, and the program output.
class SyntheticRun {
 public:
  SyntheticRun() {
    aot::Graph graph;
    const char* names[] = {"conv", "relu", "tan"};
    for (std::uint32_t h = 1; h <= 3; ++h) {
      aot::Node node;
      node.name = names[h - 1];
      node.op = names[h - 1];
      node.debug_handle = DebugHandle(h);
      graph.nodes.push_back(node);
    }
    const std::string forward(aot::kForwardMethod);
    record.edge_graphs[forward] = graph;
    record.debug_handle_map[forward] = {{InstructionId(0), {DebugHandle(1)}},
                                        {InstructionId(1), {DebugHandle(2), DebugHandle(3)}}};
    aot::DelegateMapEntry entry;
    entry.backend = "Demo";
    entry.delegate_map =
        aot::DebugHandleMap{{aot::DelegateDebugIdentifier(std::int64_t{0}), {DebugHandle(2)}},
                            {aot::DelegateDebugIdentifier(std::int64_t{1}), {DebugHandle(3)}},
                            {aot::DelegateDebugIdentifier(std::int64_t{2}), {DebugHandle(3)}}};
    record.delegate_map[forward] = {{InstructionId(1), entry}};
    record.reference_inputs = {{{2}, {0, 0}}};
    record.reference_op_outputs = {{DebugHandle(1), {{{2}, {-1, 2}}}},
                                   {DebugHandle(2), {{{2}, {0, 2}}}},
                                   {DebugHandle(3), {{{2}, {5, 6}}}}};
    record.reference_outputs = {{{2}, {5, 6}}};
    dump.runs.push_back({"Execute", -1, {}, {}, {}, {}, {}});
  }

  // Logs `values` at `instruction` with int identifier `id` (-1: none).
  void log(std::int32_t instruction, std::int32_t id, std::vector<float> values,
           bool output = false) {
    log_tensor(instruction, id, ScalarType::kFloat, values.size(), values.data(),
               values.size() * sizeof(float), output);
  }

  // Logs int8 `codes` at `instruction` with int identifier `id`.
  void log_int8(std::int32_t instruction, std::int32_t id, std::vector<std::int8_t> codes) {
    log_tensor(instruction, id, ScalarType::kChar, codes.size(), codes.data(), codes.size(), false);
  }

  // A 1-D tensor of `numel` elements whose `nbytes` bytes go into `data`.
  void log_tensor(std::int32_t instruction, std::int32_t id, ScalarType dtype, std::size_t numel,
                  const void* bytes, std::size_t nbytes, bool output) {
    etdump::DebugEvent e;
    e.instruction_id = InstructionId(instruction);
    e.delegate_debug_id_int = DelegateDebugIntId(id);
    e.value.type = etdump::ValueType::kTensor;
    etdump::Tensor t;
    t.scalar_type = static_cast<std::int8_t>(dtype);
    t.sizes = {static_cast<std::int64_t>(numel)};
    t.offset = static_cast<std::int64_t>(data.size());
    data.resize(data.size() + nbytes);
    std::memcpy(data.data() + t.offset, bytes, nbytes);
    e.value.tensor = t;
    if (output) e.value.output = true;
    dump.runs[0].events.push_back({e});
  }

  etdump::ETDumpFile dump;
  etrecord::ETRecord record;
  std::vector<std::uint8_t> data;
};

TEST(CompareNumericsTest, FindsTheFirstWrongOperatorAndKeepsDecompositionsTogether) {
  SyntheticRun run;
  run.log(0, -1, {-1, 2});           // conv: right
  run.log(1, 0, {0, 2});             // relu: right
  run.log(1, 1, {9, 9});             // sin-like: no reference of its own
  run.log(1, 2, {5, 6.5f});          // div-like: tan's output, wrong
  run.log(1, 77, {1, 1});            // not in the map
  run.log(1, -1, {5, 6.5f});         // the delegate call's output
  run.log(-1, -1, {5, 6.5f}, true);  // the program output
  const NumericReport report = *compare_numerics(run.dump, run.record, run.data);

  ASSERT_EQ(report.rows.size(), 6u);
  EXPECT_FALSE(report.rows[0].exceeds);
  EXPECT_EQ(report.rows[0].kind, NumericRowKind::kOperator);
  EXPECT_EQ(report.rows[0].reference_op, "conv");
  EXPECT_FALSE(report.rows[1].exceeds);
  const NumericRow& tan = report.rows[2];
  EXPECT_EQ(tan.kind, NumericRowKind::kDelegateInternal);
  EXPECT_EQ(tan.order, 2u) << "at the position of its first output";
  EXPECT_EQ(tan.identifiers.size(), 2u);
  EXPECT_EQ(tan.op_names, std::vector<std::string>{"tan"});
  EXPECT_DOUBLE_EQ(tan.threshold_value, 0.5);
  EXPECT_TRUE(tan.exceeds);
  ASSERT_TRUE(report.first_failure.has_value());
  EXPECT_EQ(*report.first_failure, 2u);
  EXPECT_TRUE(tan.first_failure);

  EXPECT_EQ(report.rows[3].status, NumericStatus::kUnmapped);
  const NumericRow& call = report.rows[4];
  EXPECT_EQ(call.kind, NumericRowKind::kDelegateCall);
  EXPECT_EQ(call.op_names, (std::vector<std::string>{"relu", "tan"}));
  EXPECT_EQ(call.reference_op, "tan") << "the group's last op in source order";
  EXPECT_TRUE(call.exceeds);
  EXPECT_FALSE(call.first_failure);
  EXPECT_EQ(report.rows[5].kind, NumericRowKind::kProgramOutput);
  EXPECT_TRUE(report.rows[5].exceeds);

  for (Format f : {Format::kTable, Format::kCsv, Format::kTsv, Format::kJson}) {
    ASSERT_TRUE(render_numeric(report, f).ok());
  }
  const auto doc = nlohmann::json::parse(*render_numeric(report, Format::kJson));
  EXPECT_EQ(doc["format"], "glassbox-numeric");
  EXPECT_EQ(doc["first_failure"], 2);
  EXPECT_EQ(doc["rows"][2]["identifiers"], nlohmann::json::parse("[1, 2]"));
  EXPECT_THAT(render_numeric(report, Format::kChrome), ErrorIs(Error::kInvalidArgument));
}

// An int8 delegate logs relu's (h2) output as int8 codes; the ETRecord's
// edge graph keeps the quantize of that output (scale 0.5, zero point -2).
void add_int8_relu_output(SyntheticRun* run) {
  aot::Graph& graph = run->record.edge_graphs[std::string(aot::kForwardMethod)];
  auto constant = [&](std::int32_t id, ScalarType dtype) -> aot::Value& {
    aot::Value v;
    v.id = aot::ValueId(id);
    v.name = "v" + std::to_string(id);
    v.dtype = dtype;
    v.shape = {1};
    v.kind = aot::ValueKind::kConstant;
    graph.values.push_back(v);
    return graph.values.back();
  };
  constant(10, ScalarType::kFloat).data = {0.5f};
  constant(11, ScalarType::kChar).int_data = {-2};
  constant(12, ScalarType::kChar).kind = aot::ValueKind::kNodeOutput;
  aot::Node q;
  q.name = "relu_quantize";
  q.op = std::string(aot::op::kQuantizeLinear);
  q.debug_handle = DebugHandle(2);
  q.inputs = {aot::ValueId(9), aot::ValueId(10), aot::ValueId(11)};
  q.outputs = {aot::ValueId(12)};
  graph.nodes.insert(graph.nodes.begin() + 2, q);
}

TEST(CompareNumericsTest, Int8OutputsAreDequantizedWithTheirOpsOutputScale) {
  SyntheticRun run;
  add_int8_relu_output(&run);
  // relu's reference is {0, 2}: codes {-2, 2} are exactly that; {-2, 4}
  // (3 once dequantized) is one unit off, not two.
  run.log_int8(1, 0, {-2, 2});
  const NumericReport right = *compare_numerics(run.dump, run.record, run.data);
  ASSERT_EQ(right.rows.size(), 1u);
  EXPECT_EQ(right.rows[0].status, NumericStatus::kCompared) << right.rows[0].note;
  EXPECT_TRUE(right.rows[0].dequantized);
  EXPECT_EQ(right.rows[0].runtime_dtype, ScalarType::kChar);
  EXPECT_DOUBLE_EQ(right.rows[0].threshold_value, 0);
  EXPECT_FALSE(right.rows[0].exceeds);
  const auto doc = nlohmann::json::parse(*render_numeric(right, Format::kJson));
  EXPECT_EQ(doc["rows"][0]["dequantized"], true);

  SyntheticRun wrong;
  add_int8_relu_output(&wrong);
  wrong.log_int8(1, 0, {-2, 4});
  const NumericReport report = *compare_numerics(wrong.dump, wrong.record, wrong.data);
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(report.rows[0].threshold_value, 1.0);
  EXPECT_TRUE(report.rows[0].exceeds);
}

TEST(CompareNumericsTest, Int8OutputsWithoutAScaleAreComparedAsLoggedWithANote) {
  SyntheticRun run;
  run.log_int8(1, 0, {0, 2});
  const NumericReport report = *compare_numerics(run.dump, run.record, run.data);
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_FALSE(report.rows[0].dequantized);
  EXPECT_NE(report.rows[0].note.find("no output scale"), std::string::npos);
}

TEST(CompareNumericsTest, EveryOutputOfASeveralOutputOperatorIsCompared) {
  // An lstm-like conv at instruction 0 logs two outputs (y, then y_h): both
  // are the source op's, neither an inner step; the wrong first one fails.
  SyntheticRun run;
  run.record.reference_op_outputs[DebugHandle(1)] = {{{2}, {-1, 2}}, {{2}, {3, 4}}};
  run.log(0, -1, {-1, 9});
  run.log(0, -1, {3, 4});
  const NumericReport report = *compare_numerics(run.dump, run.record, run.data);
  ASSERT_EQ(report.rows.size(), 2u);
  EXPECT_EQ(report.rows[0].status, NumericStatus::kCompared) << report.rows[0].note;
  EXPECT_TRUE(report.rows[0].exceeds);
  EXPECT_EQ(report.rows[1].reference_output, 1u);
  EXPECT_EQ(report.rows[1].status, NumericStatus::kCompared);
  EXPECT_FALSE(report.rows[1].exceeds);
  ASSERT_TRUE(report.first_failure.has_value());
  EXPECT_EQ(*report.first_failure, 0u);
}

TEST(CompareNumericsTest, NonFiniteRuntimeValuesAreReportedInJson) {
  SyntheticRun run;
  run.log(0, -1, {std::numeric_limits<float>::infinity(), 2});
  const NumericReport report = *compare_numerics(run.dump, run.record, run.data);
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_TRUE(report.rows[0].first_failure);
  EXPECT_EQ(report.rows[0].runtime_nonfinite.inf, 1u);
  const auto doc = nlohmann::json::parse(*render_numeric(report, Format::kJson));
  EXPECT_EQ(doc["rows"][0]["metrics"]["max_abs"], "inf");
  EXPECT_EQ(doc["rows"][0]["nonfinite_mismatches"], 1);
}

TEST(CompareNumericsTest, MissingDataAndReferencesAreStatusesNotGuesses) {
  SyntheticRun run;
  run.log(0, -1, {-1, 2});
  run.dump.runs[0].events.back().data = [&] {
    etdump::DebugEvent e = *run.dump.runs[0].events.back().debug();
    e.value.tensor->offset = -1;
    return e;
  }();
  run.record.reference_op_outputs.erase(DebugHandle(2));
  run.log(1, 0, {0, 2});
  const NumericReport report = *compare_numerics(run.dump, run.record, run.data);
  ASSERT_EQ(report.rows.size(), 2u);
  EXPECT_EQ(report.rows[0].status, NumericStatus::kNoData);
  EXPECT_EQ(report.rows[1].status, NumericStatus::kNoReference);
  EXPECT_FALSE(report.first_failure.has_value());
}

TEST(CompareNumericsTest, ClearErrors) {
  SyntheticRun run;
  EXPECT_THAT(compare_numerics(run.dump, run.record, run.data), ErrorIs(Error::kInvalidArgument))
      << "no values logged";
  run.log(0, -1, {-1, 2});
  NumericOptions options;
  options.execution = 3;
  const auto missing = compare_numerics(run.dump, run.record, run.data, options);
  EXPECT_NE(missing.message().find("has 1 executions"), std::string::npos) << missing.message();
  run.dump.program_fingerprint = "0000000000000000";
  run.record.fingerprint = "1111111111111111";
  EXPECT_THAT(compare_numerics(run.dump, run.record, run.data), ErrorIs(Error::kMismatch));
  run.record.reference_op_outputs.clear();
  options = {};
  options.allow_fingerprint_mismatch = true;
  const auto none = compare_numerics(run.dump, run.record, run.data, options);
  EXPECT_NE(none.message().find("--reference-seed"), std::string::npos) << none.message();
}

}  // namespace
}  // namespace glassbox::inspector
