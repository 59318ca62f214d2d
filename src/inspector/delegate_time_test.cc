// Delegate time scales: recorded by the delegate in the dump, given per
// backend as an option, or as ExecuTorch's converter function.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/inspector/views.h"
#include "src/inspector/test_inputs.h"
#include "src/inspector/test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOkAndHolds;
using testing::demo_dump;
using testing::demo_record;
using testing::find_group;
using testing::has_diagnostic;
using testing::Ids;
using testing::value_of;

// One execution: conv_relu_1 (id 100) lasts 1000 ticks, DELEGATE_CALL
// 3650 (see test_inputs.h).
etdump::ETDumpFile one_run(TickRatio tick_ratio) {
  etdump::ETDumpFile dump = demo_dump(Ids::kInt, 1);
  dump.tick_ratio = tick_ratio;
  return dump;
}

double delegate_call_mean(const Inspector& insp) {
  return find_group(insp, "DELEGATE_CALL")->stats.mean;
}

TEST(DelegateTimeTest, DumpScaleConvertsThatBackendsDelegateEventsOnly) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  etdump::ETDumpFile dump = one_run(TickRatio{5, 2});
  dump.delegate_time_scales = {{"DemoBackend", TickRatio{4, 1}, {}}};
  const Inspector insp = value_of(Inspector::create(dump, &record));
  const EventGroup* conv = find_group(insp, "100");
  EXPECT_DOUBLE_EQ(conv->stats.mean, 4000) << "4 ns per delegate tick, not 2.5";
  EXPECT_EQ(conv->time_scale, TimeScaleSource::kDump);
  EXPECT_DOUBLE_EQ(delegate_call_mean(insp), 3650 * 2.5) << "the clock's tick ratio";
  EXPECT_EQ(find_group(insp, "DELEGATE_CALL")->time_scale, TimeScaleSource::kClock);
  ASSERT_EQ(insp.time().delegate_scales.size(), 1u);
  EXPECT_EQ(insp.time().delegate_scales[0].backend, "DemoBackend");
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo, "'DemoBackend' are in its own ticks"));

  // Every view reads the converted samples: ops rows, reconcile's inner sum.
  bool conv_row_seen = false;
  for (const OpRow& row : ops_view(insp)) {
    if (row.label != "conv2d+relu") continue;
    conv_row_seen = true;
    EXPECT_DOUBLE_EQ(row.stats.mean, 4000);
    EXPECT_EQ(row.time_scale, TimeScaleSource::kDump);
  }
  EXPECT_TRUE(conv_row_seen);
  bool inner_seen = false;
  for (const ReconcileRow& row : reconcile_view(insp)) {
    if (row.kind != ReconcileKind::kInnerEvents) continue;
    inner_seen = true;
    EXPECT_DOUBLE_EQ(row.stats.mean, 4.0 * (1000 + 2000 + 300 + 200 + 100));
  }
  EXPECT_TRUE(inner_seen);
  EXPECT_NE(render(insp, View::kEvents, Format::kChrome)
                .find("\"time_scale\":\"delegate scale from dump\""),
            std::string::npos);
  EXPECT_NE(render(insp, View::kEvents, Format::kTable).find("4/1 ns per tick"), std::string::npos);
}

// The raw start of the first delegate event with integer id `id`.
double raw_start(const etdump::ETDumpFile& dump, std::int64_t id) {
  for (const etdump::RunData& run : dump.runs) {
    for (const etdump::Event& e : run.events) {
      const etdump::ProfileEvent* p = e.profile();
      if (p != nullptr && p->delegate_debug_id_int.value == id) {
        return static_cast<double>(p->start_time);
      }
    }
  }
  ADD_FAILURE() << "no delegate event " << id;
  return 0;
}

// The first occurrence's start of group `name`.
double first_start(const Inspector& insp, const std::string& name) {
  const EventGroup* group = find_group(insp, name);
  for (const Occurrence& o : insp.occurrences()) {
    if (&insp.groups()[o.group] == group) return o.start;
  }
  ADD_FAILURE() << "no occurrence of " << name;
  return 0;
}

TEST(DelegateTimeTest, DeclaredHostOffsetPlacesEventsOnTheHostTimeline) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  etdump::ETDumpFile dump = one_run(TickRatio{5, 2});
  // Host ns = delegate ticks * 4 + 1000000: the event lands there, not at
  // its DELEGATE_CALL.
  dump.delegate_time_scales = {{"DemoBackend", TickRatio{4, 1}, 1000000}};
  const Inspector placed = value_of(Inspector::create(dump, &record));
  EXPECT_DOUBLE_EQ(first_start(placed, "100"), raw_start(dump, 100) * 4 + 1000000);
  EXPECT_DOUBLE_EQ(find_group(placed, "100")->stats.mean, 4000) << "durations do not move";
  ASSERT_EQ(placed.time().delegate_scales.size(), 1u);
  EXPECT_EQ(placed.time().delegate_scales[0].host_offset_ns, 1000000);
  EXPECT_TRUE(has_diagnostic(placed, Severity::kInfo, "declared offset of 1000000 ns"));

  // Without the offset the same event starts with its DELEGATE_CALL.
  dump.delegate_time_scales[0].host_offset_ns.reset();
  const Inspector aligned = value_of(Inspector::create(dump, &record));
  EXPECT_DOUBLE_EQ(first_start(aligned, "100"), first_start(aligned, "DELEGATE_CALL"));

  // A ratio given as an option replaces the dump's clock and its offset.
  dump.delegate_time_scales[0].host_offset_ns = 1000000;
  InspectorOptions options;
  options.delegate_time_scales["DemoBackend"] = TickRatio{4, 1};
  const Inspector optioned = value_of(Inspector::create(dump, &record, {}, options));
  EXPECT_DOUBLE_EQ(first_start(optioned, "100"), first_start(optioned, "DELEGATE_CALL"));
  EXPECT_TRUE(has_diagnostic(optioned, Severity::kInfo, "host clock offset is not used"));
}

TEST(DelegateTimeTest, OptionServesExecutorchDumpsAndReplacesTheDumps) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  etdump::ETDumpFile dump = one_run(TickRatio{1, 1});
  dump.tick_ratio.reset();  // written by ExecuTorch: nanoseconds assumed
  InspectorOptions options;
  options.delegate_time_scales["DemoBackend"] = TickRatio{3, 1};
  Inspector insp = value_of(Inspector::create(dump, &record, {}, options));
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 3000);
  EXPECT_EQ(find_group(insp, "100")->time_scale, TimeScaleSource::kOption);
  EXPECT_DOUBLE_EQ(delegate_call_mean(insp), 3650);

  dump.delegate_time_scales = {{"DemoBackend", TickRatio{4, 1}, {}}};
  insp = value_of(Inspector::create(dump, &record, {}, options));
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 3000);
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo, "replaces the dump's 4/1"));
}

TEST(DelegateTimeTest, ScalesNeedAnETRecordAndAKnownBackend) {
  etdump::ETDumpFile dump = one_run(TickRatio{1, 1});
  dump.delegate_time_scales = {{"DemoBackend", TickRatio{4, 1}, {}}};
  Inspector insp = value_of(Inspector::create(dump));
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 1000);
  EXPECT_EQ(find_group(insp, "100")->time_scale, TimeScaleSource::kClock);
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning, "without an ETRecord"));

  const etrecord::ETRecord record = demo_record(Ids::kInt);
  InspectorOptions options;
  options.delegate_time_scales["NpuBackend"] = TickRatio{2, 1};
  insp = value_of(Inspector::create(dump, &record, {}, options));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning, "'NpuBackend' not applied"));
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 4000) << "the dump's still applies";
}

TEST(DelegateTimeTest, ConverterSeesIdentifierAndRawTimesAndWinsOverRatios) {
  etdump::ETDumpFile dump = one_run(TickRatio{5, 2});
  dump.delegate_time_scales = {{"DemoBackend", TickRatio{4, 1}, {}}};
  std::vector<std::pair<std::string, double>> calls;
  InspectorOptions options;
  options.delegate_time_scale_converter = [&calls](std::string_view name, double raw) {
    calls.emplace_back(std::string(name), raw);
    return raw * 10;
  };
  // Without an ETRecord too: the converter needs no backend.
  Inspector insp = value_of(Inspector::create(dump, nullptr, {}, options));
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 10000);
  EXPECT_EQ(find_group(insp, "100")->time_scale, TimeScaleSource::kConverter);
  EXPECT_DOUBLE_EQ(delegate_call_mean(insp), 3650 * 2.5) << "only delegate events convert";
  EXPECT_TRUE(insp.time().delegate_converter);
  ASSERT_EQ(calls.size(), 2u * 5) << "start and end of each delegate event";
  EXPECT_EQ(calls[0].first, "100");
  EXPECT_DOUBLE_EQ(calls[1].second - calls[0].second, 1000) << "raw ticks, unconverted";

  const etrecord::ETRecord record = demo_record(Ids::kInt);
  insp = value_of(Inspector::create(dump, &record, {}, options));
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 10000);
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo, "'DemoBackend' are not used"));
}

TEST(DelegateTimeTest, RawTicksAskedForApplyNothing) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  etdump::ETDumpFile dump = one_run(TickRatio{1, 1});
  dump.delegate_time_scales = {{"DemoBackend", TickRatio{4, 1}, {}}};
  InspectorOptions options;
  options.time_unit = TimeUnit::kTicks;
  options.delegate_time_scale_converter = [](std::string_view, double raw) { return raw * 10; };
  const Inspector insp = value_of(Inspector::create(dump, &record, {}, options));
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 1000);
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo, "converter is not applied"));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo, "'DemoBackend' are not applied"));
}

TEST(DelegateTimeTest, ParsesBackendEqualsRatio) {
  EXPECT_THAT(parse_delegate_time_scale("DemoBackend=4/1"),
              IsOkAndHolds(std::pair<std::string, TickRatio>{"DemoBackend", TickRatio{4, 1}}));
  EXPECT_THAT(parse_delegate_time_scale("a=b=5/4"),
              IsOkAndHolds(std::pair<std::string, TickRatio>{"a=b", TickRatio{5, 4}}));
  for (const char* bad : {"DemoBackend", "=4/1", "Npu=4", "Npu=0/1", "Npu=1/0", "Npu=-1/2",
                          "Npu=1/2/3", "Npu=1.5/1", "Npu= 1/2", "Npu=/2"}) {
    EXPECT_THAT(parse_delegate_time_scale(bad),
                ErrorIs(Error::kInvalidArgument, {"BACKEND=NUM/DEN", bad}))
        << bad;
  }
}

}  // namespace
}  // namespace glassbox::inspector
