#include "glassbox/inspector/inspector.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "src/inspector/test_inputs.h"
#include "src/inspector/test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::ErrorIs;

using testing::demo_dump;
using testing::demo_record;
using testing::DumpBuilder;
using testing::find_group;
using testing::has_diagnostic;
using testing::Ids;
using testing::value_of;

TEST(InspectorTest, GroupsEventsAcrossRuns) {
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kInt, 3)));
  const EventGroup* g = find_group(insp, "100");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->role, EventRole::kDelegateInternal);
  EXPECT_EQ(g->stats.count, 3u);
  EXPECT_EQ(g->occurrences, 3u);
  EXPECT_DOUBLE_EQ(g->stats.min, 1000);
  EXPECT_DOUBLE_EQ(g->stats.max, 1020);
  EXPECT_DOUBLE_EQ(g->stats.mean, 1010);
  EXPECT_EQ(find_group(insp, "DELEGATE_CALL")->role, EventRole::kDelegateCall);
  EXPECT_EQ(find_group(insp, "Method::execute")->role, EventRole::kFramework);
  EXPECT_EQ(find_group(insp, "Method::init")->block, "Default");
  EXPECT_FALSE(insp.has_etrecord());
}

TEST(InspectorTest, IntAndStringIdentifiersAreDifferentGroups) {
  // "7" as a string and 7 as an int are different identifiers.
  DumpBuilder b;
  b.run("Execute").int_event(7, 0, 0, 10).str_event("7", 0, 20, 40);
  const Inspector insp = value_of(Inspector::create(b.build()));
  ASSERT_EQ(insp.groups().size(), 2u);
  EXPECT_TRUE(std::holds_alternative<std::int64_t>(*insp.groups()[0].identifier));
  EXPECT_TRUE(std::holds_alternative<std::string>(*insp.groups()[1].identifier));
}

TEST(InspectorTest, RepeatedEventsInOneRunAreSummedAndCounted) {
  // A loop logs id 100 three times per run; two worker threads log 101.
  DumpBuilder b;
  for (int r = 0; r < 2; ++r) {
    b.run("Execute")
        .int_event(100, 0, 0, 10)
        .int_event(100, 0, 10, 30)
        .int_event(100, 0, 30, 60)
        .int_event(101, 0, 0, 100, 1)
        .int_event(101, 0, 0, 80, 2);
  }
  const Inspector insp = value_of(Inspector::create(b.build()));
  const EventGroup* loop = find_group(insp, "100");
  EXPECT_EQ(loop->occurrences, 6u);
  EXPECT_EQ(loop->stats.count, 2u);
  EXPECT_DOUBLE_EQ(loop->stats.mean, 60);
  const EventGroup* threads = find_group(insp, "101");
  EXPECT_EQ(threads->occurrences, 4u);
  EXPECT_DOUBLE_EQ(threads->stats.mean, 180);  // work time, not wall time
}

TEST(InspectorTest, EveryOccurrenceKeepsItsThreadOnceAnotherThreadAppears) {
  // Thread 0 alone first (no thread vector yet), then threads 1 and 2:
  // the earlier occurrences read 0, the later their own.
  DumpBuilder b;
  b.run("Execute").int_event(100, 0, 0, 10).int_event(100, 0, 10, 30);
  b.run("Execute").int_event(101, 0, 0, 100, 1).int_event(101, 0, 0, 80, 2).int_event(100, 0, 5, 9);
  const Inspector insp = value_of(Inspector::create(b.build()));
  ASSERT_EQ(insp.occurrences().size(), 5u);
  std::vector<std::int32_t> threads;
  for (std::size_t i = 0; i < insp.occurrences().size(); ++i) {
    threads.push_back(insp.occurrence_thread(i));
  }
  EXPECT_EQ(threads, (std::vector<std::int32_t>{0, 0, 1, 2, 0}));
  // A dump of one thread keeps none: every occurrence reads 0.
  DumpBuilder one;
  one.run("Execute").int_event(100, 0, 0, 10).int_event(100, 0, 10, 30);
  const Inspector single = value_of(Inspector::create(one.build()));
  EXPECT_EQ(single.occurrence_thread(0), 0);
  EXPECT_EQ(single.occurrence_thread(1), 0);
}

TEST(InspectorTest, ResolvesIntIdentifiersByExactKey) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kInt), &record));
  const EventGroup* fused = find_group(insp, "100");
  ASSERT_EQ(fused->source_ops.size(), 2u);
  EXPECT_EQ(fused->source_ops[0].name, "conv2d");
  EXPECT_EQ(fused->source_ops[1].type, "relu");
  EXPECT_EQ(fused->source_ops[1].module_path(), "conv_layer.relu1");
  EXPECT_TRUE(fused->delegated);
  EXPECT_EQ(fused->backend, "DemoBackend");
  EXPECT_EQ(find_group(insp, "DELEGATE_CALL")->debug_handles.size(), 5u);
  EXPECT_EQ(find_group(insp, "DELEGATE_CALL")->backend, "DemoBackend");
  EXPECT_TRUE(find_group(insp, "Method::execute")->source_ops.empty());
  EXPECT_EQ(insp.mapped_identifiers(), 5u);
  EXPECT_EQ(insp.logged_identifiers(), 5u);
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo, "5 of 5 identifiers logged"));
}

TEST(InspectorTest, GroupsKeepTheDelegateMetadataOfTheirFirstEvent) {
  etdump::ETDumpFile dump = demo_dump(Ids::kInt, 2);
  for (etdump::RunData& run : dump.runs) {
    for (etdump::Event& e : run.events) {
      auto* p = std::get_if<etdump::ProfileEvent>(&e.data);
      if (p != nullptr && p->delegate_debug_id_int.value == 100) {
        p->delegate_debug_metadata = std::vector<std::uint8_t>{'c', '+', 'r'};
      }
    }
  }
  const Inspector insp = value_of(Inspector::create(dump));
  EXPECT_EQ(find_group(insp, "100")->delegate_debug_metadata,
            (std::vector<std::uint8_t>{'c', '+', 'r'}));
  EXPECT_TRUE(find_group(insp, "101")->delegate_debug_metadata.empty());
}

TEST(InspectorTest, NeverMatchesBySubstring) {
  // ExecuTorch would attach the handles of key "10" or "0" to id 1000 (its
  // substring fallback); we report it unmapped.
  const etrecord::ETRecord record = demo_record(Ids::kInt);  // keys 100..104
  DumpBuilder b;
  b.file().program_fingerprint = testing::kFingerprint;
  b.run("Execute").int_event(1000, 0, 0, 10).int_event(10, 0, 10, 20).str_event("100", 0, 20, 30);
  const Inspector insp = value_of(Inspector::create(b.build(), &record));
  for (const EventGroup& g : insp.groups()) {
    EXPECT_FALSE(g.resolved) << g.name;
    EXPECT_TRUE(g.debug_handles.empty()) << g.name;
  }
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning,
                             "missing from its debug handle map: 1000, 10, \"100\""));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning, "0 of 5 identifiers logged"));
}

TEST(InspectorTest, ReportsIdentifiersNeverLogged) {
  const etrecord::ETRecord record = demo_record(Ids::kString);
  etdump::ETDumpFile dump = demo_dump(Ids::kString, 1);
  // Drop "tan.div" (the fifth delegate event of the Execute run).
  auto& events = dump.runs[1].events;
  events.erase(events.begin() + 4);
  const Inspector insp = value_of(Inspector::create(dump, &record));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning,
                             "4 of 5 identifiers logged; never logged: \"tan.div\""));
  EXPECT_EQ(insp.logged_identifiers(), 4u);
}

TEST(InspectorTest, FingerprintMismatchIsAnErrorUnlessAllowed) {
  etrecord::ETRecord record = demo_record(Ids::kInt);
  record.fingerprint = "ffffffffffffffff";
  const StatusOr<Inspector> refused = Inspector::create(demo_dump(Ids::kInt), &record);
  ASSERT_THAT(refused, ErrorIs(Error::kMismatch));
  EXPECT_NE(refused.message().find("ffffffffffffffff"), std::string::npos);
  EXPECT_NE(refused.message().find(testing::kFingerprint), std::string::npos);

  InspectorOptions options;
  options.allow_fingerprint_mismatch = true;
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kInt), &record, {}, options));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kError, "fingerprint mismatch"));
  EXPECT_EQ(insp.fingerprint_check(), FingerprintCheck::kMismatchAllowed);
}

// A damaged dump's fingerprint is binary: echoed raw it broke the one-line
// message over many lines (and could drive the terminal).
TEST(InspectorTest, AFingerprintIsEchoedOnOneEscapedLine) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  etdump::ETDumpFile dump = demo_dump(Ids::kInt);
  dump.program_fingerprint = "ab\ncd\x1b[2J" + std::string(1000, '\n');
  const StatusOr<Inspector> refused = Inspector::create(dump, &record);
  ASSERT_THAT(refused, ErrorIs(Error::kMismatch));
  EXPECT_EQ(refused.message().find('\n'), std::string::npos) << refused.message();
  EXPECT_EQ(refused.message().find('\x1b'), std::string::npos);
  EXPECT_NE(refused.message().find("program ab\\ncd\\x1b[2J\\n"), std::string::npos)
      << refused.message();
  EXPECT_NE(refused.message().find("... (1009 bytes)"), std::string::npos) << refused.message();
  EXPECT_LT(refused.message().size(), 500u);
}

TEST(InspectorTest, SaysWhatTheFingerprintCheckFound) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  etdump::ETDumpFile dump = demo_dump(Ids::kInt);
  EXPECT_EQ(value_of(Inspector::create(dump, &record)).fingerprint_check(),
            FingerprintCheck::kMatch);
  EXPECT_EQ(value_of(Inspector::create(dump)).fingerprint_check(), FingerprintCheck::kNoETRecord);
  dump.program_fingerprint.reset();
  EXPECT_EQ(value_of(Inspector::create(dump, &record)).fingerprint_check(),
            FingerprintCheck::kNotInDump);
}

TEST(InspectorTest, TimeUnitComesFromTheDumpOrIsAssumed) {
  etdump::ETDumpFile dump = demo_dump(Ids::kInt, 1);
  dump.tick_ratio = TickRatio{5, 2};  // 2.5 ns per tick
  Inspector insp = value_of(Inspector::create(dump));
  EXPECT_EQ(insp.time().source, TimeUnitSource::kDump);
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 2500);

  dump.tick_ratio.reset();
  insp = value_of(Inspector::create(dump));
  EXPECT_EQ(insp.time().source, TimeUnitSource::kAssumedNanoseconds);
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 1000);
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning, "assumed to be nanoseconds"));

  InspectorOptions options;
  options.time_unit = TimeUnit::kMicroseconds;
  insp = value_of(Inspector::create(dump, nullptr, {}, options));
  EXPECT_EQ(insp.time().source, TimeUnitSource::kOverride);
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 1e6);

  options.time_unit = TimeUnit::kTicks;
  insp = value_of(Inspector::create(dump, nullptr, {}, options));
  EXPECT_EQ(insp.time().unit, "ticks");
}

TEST(InspectorTest, SkipsWarmUpExecutions) {
  InspectorOptions options;
  options.skip_first_runs = 2;
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kInt, 3), nullptr, {}, options));
  EXPECT_DOUBLE_EQ(find_group(insp, "100")->stats.mean, 1020);  // only run 2 is left
  EXPECT_EQ(find_group(insp, "100")->stats.count, 1u);
  EXPECT_NE(find_group(insp, "Method::init"), nullptr);  // Default is not an execution

  options.skip_first_runs = 3;
  const StatusOr<Inspector> none = Inspector::create(demo_dump(Ids::kInt, 3), nullptr, {}, options);
  EXPECT_THAT(none, ErrorIs(Error::kInvalidArgument));
}

TEST(InspectorTest, ReportsDroppedAndRejectedEvents) {
  etdump::ETDumpFile dump = demo_dump(Ids::kInt, 1);
  dump.runs[1].dropped_events = 7;
  dump.runs[1].rejected_events = 2;
  dump.dropped_blocks = 4;
  const Inspector insp = value_of(Inspector::create(dump));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning, "7 events were dropped"));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning, "2 events were rejected"));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning, "4 event blocks"));
  EXPECT_EQ(insp.counters().dropped_events, 7u);
  EXPECT_EQ(insp.counters().rejected_events, 2u);
  EXPECT_EQ(insp.counters().tensor_data_dropped, 0u);
}

TEST(InspectorTest, ReversedTimesCountAsZero) {
  DumpBuilder b;
  b.run("Execute").op("OPERATOR_CALL", 0, 100, 50);
  const Inspector insp = value_of(Inspector::create(b.build()));
  EXPECT_EQ(insp.groups()[0].stats.mean, 0);
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning, "end before they start"));
}

TEST(InspectorTest, DelegateEventsAtANonDelegateInstructionAreReported) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  DumpBuilder b;
  b.run("Execute").int_event(100, 3, 0, 10);
  const Inspector insp = value_of(Inspector::create(b.build(), &record));
  EXPECT_FALSE(insp.groups()[0].resolved);
  EXPECT_TRUE(
      has_diagnostic(insp, Severity::kWarning, "instruction 3, which the ETRecord does not list"));
}

}  // namespace
}  // namespace glassbox::inspector
