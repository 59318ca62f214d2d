#include "glassbox/inspector/aggregate.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "src/inspector/test_inputs.h"
#include "src/inspector/test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

using testing::demo_dump;
using testing::demo_record;
using testing::DumpBuilder;
using testing::Ids;
using testing::value_of;

const EventGroup& group_named(const Inspector& insp, const std::string& name) {
  for (const EventGroup& g : insp.groups()) {
    if (g.name == name) return g;
  }
  ADD_FAILURE() << "no group " << name;
  static const EventGroup none;
  return none;
}

TEST(InspectorAggregatorTest, PoolsTheSamplesOfEveryDumpInMergeOrder) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector two = value_of(Inspector::create(demo_dump(Ids::kInt, 2), &record));
  const Inspector three = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));

  InspectorAggregator aggregator(&record, {});
  ASSERT_THAT(aggregator.add(demo_dump(Ids::kInt, 2)), IsOk());
  ASSERT_THAT(aggregator.add(demo_dump(Ids::kInt, 3)), IsOk());
  const Inspector both = std::move(aggregator).build();

  EXPECT_EQ(both.runs().size(), two.runs().size() + three.runs().size());
  ASSERT_EQ(both.groups().size(), two.groups().size());
  for (const EventGroup& g : both.groups()) {
    const EventGroup& a = group_named(two, g.name);
    const EventGroup& b = group_named(three, g.name);
    std::vector<double> pooled = a.samples;
    pooled.insert(pooled.end(), b.samples.begin(), b.samples.end());
    EXPECT_EQ(g.samples, pooled) << g.name;
    EXPECT_EQ(g.occurrences, a.occurrences + b.occurrences) << g.name;
    EXPECT_DOUBLE_EQ(g.stats.p90, PerfStats::of(pooled).p90) << g.name;
    EXPECT_EQ(g.source_ops.size(), a.source_ops.size()) << g.name;
    // Sample runs point at the second dump's runs after the first's.
    for (std::size_t s = a.samples.size(); s < g.sample_runs.size(); ++s) {
      EXPECT_GE(g.sample_runs[s], two.runs().size()) << g.name;
    }
  }
}

TEST(InspectorAggregatorTest, SkipsTheFirstRunsOfEachDump) {
  InspectorOptions options;
  options.skip_first_runs = 1;
  InspectorAggregator aggregator(nullptr, options);
  ASSERT_THAT(aggregator.add(demo_dump(Ids::kInt, 2)), IsOk());
  ASSERT_THAT(aggregator.add(demo_dump(Ids::kInt, 3)), IsOk());
  const Inspector insp = std::move(aggregator).build();
  // (2 - 1) + (3 - 1) executions used; run r of a dump lasts 1000 + 10r.
  EXPECT_EQ(group_named(insp, "100").samples, (std::vector<double>{1010, 1010, 1020}));
}

TEST(InspectorAggregatorTest, ThreadsThatPrepareDoNotChangeTheResult) {
  const etrecord::ETRecord record = demo_record(Ids::kString);
  std::vector<etdump::ETDumpFile> dumps;
  for (int runs = 1; runs <= 6; ++runs) dumps.push_back(demo_dump(Ids::kString, runs));

  InspectorAggregator sequential(&record, {});
  for (const etdump::ETDumpFile& dump : dumps) ASSERT_THAT(sequential.add(dump), IsOk());

  std::vector<std::optional<PreparedDump>> prepared(dumps.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < dumps.size(); ++i) {
    threads.emplace_back(
        [&, i] { prepared[i] = value_of(InspectorAggregator::prepare(dumps[i], &record, {})); });
  }
  for (std::thread& t : threads) t.join();
  InspectorAggregator parallel(&record, {});
  for (std::optional<PreparedDump>& p : prepared) parallel.merge(std::move(*p));

  const Inspector a = std::move(sequential).build();
  const Inspector b = std::move(parallel).build();
  ASSERT_EQ(a.groups().size(), b.groups().size());
  for (std::size_t g = 0; g < a.groups().size(); ++g) {
    EXPECT_EQ(a.groups()[g].name, b.groups()[g].name);
    EXPECT_EQ(a.groups()[g].samples, b.groups()[g].samples);
    EXPECT_EQ(a.groups()[g].sample_runs, b.groups()[g].sample_runs);
  }
  EXPECT_EQ(a.diagnostics(), b.diagnostics());
}

TEST(InspectorAggregatorTest, RefusesADumpOfAnotherProgram) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  etdump::ETDumpFile other = demo_dump(Ids::kInt, 2);
  other.program_fingerprint = "ffffffffffffffff";
  EXPECT_THAT(InspectorAggregator::prepare(other, &record, {}).status(),
              ErrorIs(Error::kMismatch, {"fingerprint"}));
}

TEST(InspectorAggregatorTest, KeepsOccurrencesOnlyWhenAsked) {
  InspectorOptions lean;
  lean.keep_occurrences = false;
  InspectorAggregator without(nullptr, lean);
  InspectorAggregator with(nullptr, {});
  for (InspectorAggregator* a : {&without, &with}) {
    ASSERT_THAT(a->add(demo_dump(Ids::kInt, 2)), IsOk());
    ASSERT_THAT(a->add(demo_dump(Ids::kInt, 2)), IsOk());
  }
  const Inspector kept = std::move(with).build();
  EXPECT_TRUE(std::move(without).build().occurrences().empty());
  ASSERT_FALSE(kept.occurrences().empty());
  // The second dump's occurrences point at its own runs, after the first's.
  EXPECT_EQ(kept.occurrences().back().run, kept.runs().size() - 1);
}

TEST(InspectorAggregatorTest, MergedOccurrencesKeepTheirThreads) {
  // One thread, then two, then one again: only the middle dump's
  // occurrences are on threads other than 0.
  DumpBuilder single;
  single.run("Execute").int_event(100, 0, 0, 10);
  DumpBuilder two;
  two.run("Execute").int_event(100, 0, 0, 10, 1).int_event(100, 0, 0, 8, 2);
  InspectorAggregator aggregator(nullptr, {});
  for (DumpBuilder* b : {&single, &two, &single}) ASSERT_THAT(aggregator.add(b->build()), IsOk());
  const Inspector merged = std::move(aggregator).build();
  ASSERT_EQ(merged.occurrences().size(), 4u);
  std::vector<std::int32_t> threads;
  for (std::size_t i = 0; i < 4; ++i) threads.push_back(merged.occurrence_thread(i));
  EXPECT_EQ(threads, (std::vector<std::int32_t>{0, 1, 2, 0}));
}

TEST(InspectorAggregatorTest, NoDumpGivesAnEmptyInspector) {
  const Inspector insp = InspectorAggregator(nullptr, {}).build();
  EXPECT_TRUE(insp.groups().empty());
  EXPECT_TRUE(insp.runs().empty());
}

}  // namespace
}  // namespace glassbox::inspector
