// The numeric view of a value sized by data: a non_zero's output is
// compared at this execution's size and its row carries the program's
// bound ("2x5 (bound 2x12)" in the table, "bound_shape" in JSON).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "glassbox/aot/graph_builder.h"
#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etrecord/reference_runner.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/inspector/numeric.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::IsOk;

TEST(NumericDynamicTest, ARowOfADynamicValueHasItsSizeAndBound) {
  aot::GraphBuilder b;
  const aot::ValueId x = b.input("x", ScalarType::kFloat, {2, 6});
  b.output(b.op(aot::op::kNonZero, {b.op(aot::op::kRelu, {x}, {})}, {}));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  exporter::Recipe recipe;
  recipe.generate_etrecord = true;
  StatusOr<exporter::ExecutorchProgramManager> program = exporter::export_model(*graph, recipe);
  ASSERT_THAT(program, IsOk());
  StatusOr<etrecord::ETRecord> record = program->get_etrecord();
  ASSERT_THAT(record, IsOk());
  const std::vector<float> input = {1, -2, 3, 0, 5, -1, 0, 0, 2, -3, 1, 0};  // 5 positive
  etrecord::ReferenceTensor reference_input;
  reference_input.sizes = {2, 6};
  reference_input.data = input;
  ASSERT_THAT(etrecord::attach_reference(*graph, {reference_input}, &*record), IsOk());

  runtime::Diagnostics diag;
  Result<runtime::Program> loaded = runtime::Program::load(program->buffer(), &diag);
  ASSERT_THAT(loaded, IsOk()) << diag.message;
  std::vector<std::uint8_t> storage(1 << 16);
  Result<etdump::BufferDataSink> sink = etdump::BufferDataSink::create(storage);
  ASSERT_THAT(sink, IsOk());
  etdump::ETDumpGen gen;
  gen.set_program_fingerprint(loaded->fingerprint());
  gen.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  gen.set_data_sink(&*sink);
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*loaded, "forward", &memory, &temp, &gen, &diag);
  ASSERT_THAT(method, IsOk()) << diag.message;
  ASSERT_EQ(method->set_input(0, input.data(), input.size() * sizeof(float)), Error::kOk);
  ASSERT_EQ(method->execute(&diag), Error::kOk) << diag.message;
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*gen.get_etdump_data(), "dynamic");
  ASSERT_THAT(dump, IsOk());

  StatusOr<NumericReport> report = compare_numerics(
      *dump, *record, std::span<const std::uint8_t>(storage.data(), sink->used_bytes()));
  ASSERT_THAT(report, IsOk());
  const NumericRow* row = nullptr;
  for (const NumericRow& r : report->rows) {
    if (r.kind == NumericRowKind::kOperator && !r.op_types.empty() &&
        r.op_types.back() == aot::op::kNonZero) {
      row = &r;
    }
  }
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, NumericStatus::kCompared) << row->note;
  EXPECT_EQ(row->runtime_sizes, (std::vector<std::int64_t>{2, 5}));
  EXPECT_EQ(row->bound_sizes, (std::vector<std::int64_t>{2, 12}));
  StatusOr<std::string> table = render_numeric(*report, Format::kTable);
  ASSERT_THAT(table, IsOk());
  EXPECT_NE(table->find("2x5 (bound 2x12)"), std::string::npos) << *table;
}

}  // namespace
}  // namespace glassbox::inspector
