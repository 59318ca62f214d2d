// Delegate counters in the Inspector: summed per group and per ops row over
// the runs used (mean per execution), the same from an ETDumpFile and an
// ETDumpBuffer, pooled by the aggregator, shown as ops-view columns in
// every format, per event in the chrome trace and in export's rows; a dump
// without counters gets no counter column at all.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/inspector/aggregate.h"
#include "glassbox/inspector/export_rows.h"
#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/views.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::IsOk;
using runtime::DelegateCounter;

// Two executions of a delegate with two ops (int ids 1 and 2, post time):
// op 1 counts cycles and MACs and runs twice in the second execution; op 2
// counts DMA bytes only. A warm-up block before them may be skipped.
std::vector<std::uint8_t> counter_dump(std::int64_t scale = 1) {
  etdump::ETDumpGen gen;
  auto log = [&](std::int32_t id, Ticks start, Ticks end, Span<const DelegateCounter> counters) {
    EXPECT_EQ(gen.log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(id), start, end,
                                                       counters),
              Error::kOk);
  };
  gen.set_chain_instruction(ChainId(0), InstructionId(0));
  for (int run = 0; run < 2; ++run) {
    EXPECT_EQ(gen.create_event_block("Execute"), Error::kOk);
    const DelegateCounter conv[] = {{"cycles", 100 * (run + 1) * scale}, {"macs", 1000 * scale}};
    const DelegateCounter dma[] = {{"dma_bytes", 64 * scale}};
    log(1, 0, 10, conv);
    log(2, 10, 15, dma);
    if (run == 1) log(1, 15, 25, conv);
  }
  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  EXPECT_TRUE(data.ok());
  return std::vector<std::uint8_t>(data->begin(), data->end());
}

etdump::ETDumpFile parsed(const std::vector<std::uint8_t>& bytes) {
  StatusOr<etdump::ETDumpFile> file = etdump::parse_etdump(bytes, "counters.etdp");
  EXPECT_THAT(file, IsOk());
  return file.ok() ? std::move(*file) : etdump::ETDumpFile{};
}

const OpRow& row_with(const std::vector<OpRow>& rows, const std::string& label) {
  for (const OpRow& r : rows) {
    if (r.label == label) return r;
  }
  ADD_FAILURE() << "no row " << label;
  static const OpRow none;
  return none;
}

TEST(InspectorCountersTest, OpsRowsSumOverOccurrencesAndRunsAndAverageOverExecutions) {
  const std::vector<std::uint8_t> bytes = counter_dump();
  StatusOr<Inspector> from_file = Inspector::create(parsed(bytes));
  ASSERT_THAT(from_file, IsOk());
  StatusOr<etdump::ETDumpBuffer> buffer = etdump::ETDumpBuffer::parse(bytes, "counters.etdp");
  ASSERT_THAT(buffer, IsOk());
  StatusOr<Inspector> from_buffer = Inspector::create(*buffer);
  ASSERT_THAT(from_buffer, IsOk());
  for (const Inspector* insp : {&*from_file, &*from_buffer}) {
    EXPECT_EQ(insp->counter_names(), (std::vector<std::string>{"cycles", "macs", "dma_bytes"}));
    const std::vector<OpRow> rows = ops_view(*insp);
    const OpRow& conv = row_with(rows, "1");
    // Run 0: 100 cycles; run 1: twice 200.
    EXPECT_EQ(conv.counter_sum("cycles"), 500);
    EXPECT_DOUBLE_EQ(conv.counter_mean("cycles"), 250.0);
    EXPECT_EQ(conv.counter_sum("macs"), 3000);
    EXPECT_EQ(conv.counter_sum("dma_bytes"), 0);
    const OpRow& dma = row_with(rows, "2");
    EXPECT_EQ(dma.counter_sum("dma_bytes"), 128);
    EXPECT_DOUBLE_EQ(dma.counter_mean("dma_bytes"), 64.0);
    EXPECT_EQ(dma.counters, (std::vector<CounterTotal>{{"dma_bytes", 128}}));
  }
}

TEST(InspectorCountersTest, SkippedRunsCountNothing) {
  InspectorOptions options;
  options.skip_first_runs = 1;
  StatusOr<Inspector> insp = Inspector::create(parsed(counter_dump()), nullptr, {}, options);
  ASSERT_THAT(insp, IsOk());
  const std::vector<OpRow> rows = ops_view(*insp);
  const OpRow& conv = row_with(rows, "1");
  EXPECT_EQ(conv.counter_sum("cycles"), 400);
  EXPECT_DOUBLE_EQ(conv.counter_mean("cycles"), 400.0);
}

TEST(InspectorCountersTest, TheAggregatorPoolsCountersByName) {
  InspectorAggregator aggregator(nullptr, {});
  ASSERT_THAT(aggregator.add(parsed(counter_dump(1))), IsOk());
  ASSERT_THAT(aggregator.add(parsed(counter_dump(10))), IsOk());
  const Inspector both = std::move(aggregator).build();
  EXPECT_EQ(both.counter_names(), (std::vector<std::string>{"cycles", "macs", "dma_bytes"}));
  const std::vector<OpRow> rows = ops_view(both);
  const OpRow& conv = row_with(rows, "1");
  EXPECT_EQ(conv.counter_sum("cycles"), 500 + 5000);
  EXPECT_DOUBLE_EQ(conv.counter_mean("cycles"), 5500.0 / 4);
  // The second dump's occurrences keep their own values.
  const std::string trace = to_chrome_trace(both);
  EXPECT_NE(trace.find("\"counters\":{\"cycles\":2000,\"macs\":10000}"), std::string::npos);
}

TEST(InspectorCountersTest, EveryFormatShowsTheColumns) {
  StatusOr<Inspector> insp = Inspector::create(parsed(counter_dump()));
  ASSERT_THAT(insp, IsOk());
  const std::string csv = render(*insp, View::kOps, Format::kCsv);
  EXPECT_NE(csv.find(",percent,cycles_sum,cycles_mean,macs_sum,macs_mean,dma_bytes_sum,"
                     "dma_bytes_mean\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",500,250.000,3000,1500.000,0,0.000\n"), std::string::npos) << csv;
  const std::string json = render(*insp, View::kOps, Format::kJson);
  EXPECT_NE(json.find("\"counters\": {\n        \"cycles\": {\n          \"sum\": 500,\n"
                      "          \"mean\": 250.0\n"),
            std::string::npos)
      << json;
  const std::string table = render(*insp, View::kOps, Format::kTable);
  EXPECT_NE(table.find("cycles mean"), std::string::npos) << table;
  EXPECT_NE(table.find("250.0"), std::string::npos) << table;
  const std::string trace = to_chrome_trace(*insp);
  EXPECT_NE(trace.find("\"counters\":{\"cycles\":100,\"macs\":1000}"), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"counters\":{\"dma_bytes\":64}"), std::string::npos) << trace;
}

std::string exported(const Inspector& insp, ExportRows rows, ExportFormat format) {
  std::string out = export_header(rows, format);
  append_export_rows(insp, {"c.etdp", {}}, rows, format, out);
  return out;
}

TEST(InspectorCountersTest, ExportRowsCarryEachEventsCountersAndEachOpsSumPerRun) {
  StatusOr<Inspector> insp = Inspector::create(parsed(counter_dump()));
  ASSERT_THAT(insp, IsOk());
  const std::string events = exported(*insp, ExportRows::kEvents, ExportFormat::kNdjson);
  // The second run's first conv event: its own values, not the run's sum.
  EXPECT_NE(events.find("\"counters\":{\"cycles\":200,\"macs\":1000}}\n"), std::string::npos)
      << events;
  EXPECT_NE(events.find("\"counters\":{\"dma_bytes\":64}}\n"), std::string::npos) << events;
  const std::string ops = exported(*insp, ExportRows::kOps, ExportFormat::kNdjson);
  // Op 1 in run 1: two events of 200 cycles and 1000 MACs each.
  EXPECT_NE(ops.find("\"run\":1,\"op\":\"1\""), std::string::npos) << ops;
  EXPECT_NE(ops.find("\"counters\":{\"cycles\":400,\"macs\":2000}}\n"), std::string::npos) << ops;
  EXPECT_NE(ops.find("\"counters\":{\"cycles\":100,\"macs\":1000}}\n"), std::string::npos) << ops;
  const std::string csv = exported(*insp, ExportRows::kOps, ExportFormat::kCsv);
  EXPECT_NE(csv.find(",time_scale,counters\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",cycles=400;macs=2000\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",dma_bytes=64\n"), std::string::npos) << csv;
}

TEST(InspectorCountersTest, ADumpWithoutCountersHasNoCounterColumns) {
  etdump::ETDumpGen gen;
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  ASSERT_EQ(gen.log_profiling_delegate(nullptr, DelegateDebugIntId(1), 0, 10), Error::kOk);
  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  ASSERT_TRUE(data.ok());
  StatusOr<Inspector> insp =
      Inspector::create(parsed(std::vector<std::uint8_t>(data->begin(), data->end())));
  ASSERT_THAT(insp, IsOk());
  EXPECT_TRUE(insp->counter_names().empty());
  EXPECT_EQ(render(*insp, View::kOps, Format::kCsv).find("_sum"), std::string::npos);
  EXPECT_EQ(render(*insp, View::kOps, Format::kJson).find("counters"), std::string::npos);
  EXPECT_EQ(to_chrome_trace(*insp).find("counters"), std::string::npos);
  // Export's NDJSON rows stay as they were; its CSV has an empty cell.
  EXPECT_EQ(exported(*insp, ExportRows::kEvents, ExportFormat::kNdjson).find("counters"),
            std::string::npos);
  EXPECT_NE(exported(*insp, ExportRows::kEvents, ExportFormat::kCsv).find(",clock,\n"),
            std::string::npos);
}

}  // namespace
}  // namespace glassbox::inspector
