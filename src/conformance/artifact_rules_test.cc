// check_artifacts: each rule passes on a well-behaved dump and fails, naming
// the offender, on a dump planted with one fault, written with ETDumpGen as
// a delegate would; ExecuTorch's fixtures linted.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "glassbox/conformance/conformance.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etrecord/etrecord.h"

namespace glassbox::conformance {
namespace {

using ::testing::HasSubstr;

constexpr char kBackend[] = "TestBackend";
// The delegate call of the planted programs, and its map: ids 0 and 1.
constexpr std::int32_t kDelegateInstruction = 1;
constexpr DelegateDebugIntId kFirst(0), kSecond(1);

etrecord::ETRecord record_with_map() {
  etrecord::ETRecord record;
  aot::DebugHandleMap map;
  map[aot::DelegateDebugIdentifier(std::int64_t{0})] = {DebugHandle(1)};
  map[aot::DelegateDebugIdentifier(std::int64_t{1})] = {DebugHandle(2)};
  record.delegate_map["forward"][InstructionId(kDelegateInstruction)] = {kBackend, map};
  return record;
}

// Writes executions of one delegate call whose body logs what a test plants.
class PlantedDump {
 public:
  using Body = std::function<void(etdump::ETDumpGen&)>;

  PlantedDump() = default;

  etdump::ETDumpGen& gen() { return gen_; }
  Ticks now() const { return gen_.clock().now(); }
  // A time strictly after `t` on the tracer's clock.
  Ticks after(Ticks t) const {
    Ticks n = now();
    while (n <= t) n = now();
    return n;
  }

  void execute(const Body& body) {
    ASSERT_EQ(gen_.create_event_block("Execute"), Error::kOk);
    gen_.set_chain_instruction(ChainId(0), InstructionId(kDelegateInstruction));
    const runtime::EventTracerEntry call =
        gen_.start_profiling("DELEGATE_CALL", ChainId(0), InstructionId(kDelegateInstruction));
    after(call.start_time);
    body(gen_);
    after(now());
    ASSERT_EQ(gen_.end_profiling(call), Error::kOk);
  }

  // A delegate event logged now, with its real start and end.
  void log(DelegateDebugIntId id, const std::string& metadata = "") {
    const Ticks start = after(now());
    const Ticks end = after(start);
    EXPECT_EQ(
        gen_.log_profiling_delegate(nullptr, id, start, end,
                                    metadata.empty() ? nullptr : metadata.data(), metadata.size()),
        Error::kOk);
  }

  etdump::ETDumpFile parsed() {
    Result<Span<const std::uint8_t>> bytes = gen_.get_etdump_data();
    EXPECT_TRUE(bytes.ok());
    StatusOr<etdump::ETDumpFile> file =
        etdump::parse_etdump({bytes->data(), bytes->size()}, "planted.etdp");
    EXPECT_TRUE(file.ok()) << file.status().message();
    return *file;
  }

 private:
  etdump::ETDumpGen gen_;
};

const RuleResult& rule(const std::vector<RuleResult>& results, const std::string& name) {
  for (const RuleResult& r : results) {
    if (r.rule == name) return r;
  }
  static const RuleResult kMissing{"missing", Outcome::kFail, "no such rule"};
  ADD_FAILURE() << "no rule " << name;
  return kMissing;
}

// Only `failing` fails, and its detail says `why`.
void expect_only_failure(const std::vector<RuleResult>& results, const std::string& failing,
                         const std::string& why) {
  for (const RuleResult& r : results) {
    if (r.rule == failing) {
      EXPECT_EQ(r.outcome, Outcome::kFail) << r.rule << ": " << r.detail;
      EXPECT_THAT(r.detail, HasSubstr(why));
    } else {
      EXPECT_EQ(r.outcome, Outcome::kPass) << r.rule << ": " << r.detail;
    }
  }
}

TEST(ArtifactRulesTest, AWellBehavedDelegatePassesEveryRule) {
  PlantedDump dump;
  for (int execution = 0; execution < 2; ++execution) {
    dump.execute([&](etdump::ETDumpGen&) {
      dump.log(kFirst, "conv: direct");
      dump.log(kSecond, "relu");
    });
  }
  const std::vector<RuleResult> results = check_artifacts(dump.parsed(), record_with_map());
  ASSERT_EQ(results.size(), 6u);
  for (const RuleResult& r : results) EXPECT_EQ(r.outcome, Outcome::kPass) << r.rule << r.detail;
  EXPECT_TRUE(all_passed(results));
}

TEST(ArtifactRulesTest, AnIdentifierMissingFromTheMapFailsCoverageNamingIt) {
  PlantedDump dump;
  dump.execute([&](etdump::ETDumpGen&) {
    dump.log(kFirst);
    dump.log(kSecond);
    dump.log(DelegateDebugIntId(7));
  });
  const std::vector<RuleResult> results = check_artifacts(dump.parsed(), record_with_map());
  expect_only_failure(results, "coverage.logged_in_map", "7 logged at instruction 1");
  EXPECT_FALSE(all_passed(results));
}

TEST(ArtifactRulesTest, AMappedIdentifierNeverLoggedFailsCoverageNamingIt) {
  PlantedDump dump;
  dump.execute([&](etdump::ETDumpGen&) { dump.log(kFirst); });
  expect_only_failure(check_artifacts(dump.parsed(), record_with_map()), "coverage.map_logged",
                      "1 of the map of instruction 1 (TestBackend) is not logged in run 0");
}

TEST(ArtifactRulesTest, AnUnsetIdentifierFailsIds) {
  PlantedDump dump;
  dump.execute([&](etdump::ETDumpGen& gen) {
    dump.log(kFirst);
    dump.log(kSecond);
    // Neither a name nor an int id: the tracer refuses it and counts it.
    const Ticks t = dump.now();
    EXPECT_NE(gen.log_profiling_delegate(nullptr, kUnsetDelegateDebugIntId, t, t), Error::kOk);
  });
  expect_only_failure(check_artifacts(dump.parsed(), record_with_map()), "ids.set",
                      "refused 1 call(s) as invalid");
}

TEST(ArtifactRulesTest, ANegativeIdentifierIsRefusedAndFailsIds) {
  PlantedDump dump;
  dump.execute([&](etdump::ETDumpGen& gen) {
    dump.log(kFirst);
    dump.log(kSecond);
    const Ticks t = dump.now();
    constexpr DelegateDebugIntId kNegative(-5);
    EXPECT_NE(gen.log_profiling_delegate(nullptr, kNegative, t, t), Error::kOk);
  });
  expect_only_failure(check_artifacts(dump.parsed(), record_with_map()), "ids.set",
                      "refused 1 call(s) as invalid");
}

TEST(ArtifactRulesTest, AnEventEndingBeforeItStartsFailsBalance) {
  PlantedDump dump;
  dump.execute([&](etdump::ETDumpGen& gen) {
    dump.log(kFirst);
    const Ticks start = dump.now();
    const Ticks end = dump.after(start);
    EXPECT_EQ(gen.log_profiling_delegate(nullptr, kSecond, end, start), Error::kOk);
  });
  const std::vector<RuleResult> results = check_artifacts(dump.parsed(), record_with_map());
  EXPECT_EQ(rule(results, "events.balanced").outcome, Outcome::kFail);
  EXPECT_THAT(rule(results, "events.balanced").detail,
              HasSubstr("1 at instruction 1 of run 0 ends before it starts"));
}

TEST(ArtifactRulesTest, AnEventOutsideItsDelegateCallFailsNesting) {
  PlantedDump dump;
  dump.execute([&](etdump::ETDumpGen& gen) {
    // Times from before the call began: a delegate stamping with another
    // clock than the one it declared (here: none, so the host's).
    constexpr Ticks kLongAgo = 1000;
    EXPECT_EQ(gen.log_profiling_delegate(nullptr, kSecond, kLongAgo, kLongAgo + 1), Error::kOk);
    dump.log(kFirst);
  });
  expect_only_failure(check_artifacts(dump.parsed(), record_with_map()), "events.balanced",
                      "1 at instruction 1 of run 0 lies outside its DELEGATE_CALL");
}

TEST(ArtifactRulesTest, EventsGoingBackInTimeFailMonotonic) {
  PlantedDump dump;
  dump.execute([&](etdump::ETDumpGen& gen) {
    const Ticks t0 = dump.now();
    const Ticks t1 = dump.after(t0);
    const Ticks t2 = dump.after(t1);
    const Ticks t3 = dump.after(t2);
    // Logged in this order, the second ends before the first.
    EXPECT_EQ(gen.log_profiling_delegate(nullptr, kFirst, t1, t3), Error::kOk);
    EXPECT_EQ(gen.log_profiling_delegate(nullptr, kSecond, t0, t2), Error::kOk);
  });
  expect_only_failure(check_artifacts(dump.parsed(), record_with_map()), "time.monotonic",
                      "1 at instruction 1 of run 0 ends");
}

TEST(ArtifactRulesTest, OverlongMetadataFailsTheLimitNamingItsSize) {
  PlantedDump dump;
  const std::string overlong(kMaxDelegateMetadataBytes + 1, 'm');
  dump.execute([&](etdump::ETDumpGen&) {
    dump.log(kFirst, std::string(kMaxDelegateMetadataBytes, 'm'));  // at the limit: fine
    dump.log(kSecond, overlong);
  });
  expect_only_failure(check_artifacts(dump.parsed(), record_with_map()), "metadata.limits",
                      "carries 113 bytes of metadata (limit 112)");
}

TEST(ArtifactRulesTest, TimesAreCheckedInTheDelegatesDeclaredClock) {
  // Delegate ticks of 2 ns whose tick 0 is a host time inside the call:
  // ticks 1 to 3 land inside it. The same ticks at a second per tick and
  // no offset would not fit (the duration exceeds the call's), nor would
  // the offset place them inside.
  for (const auto& [ns_per_tick, with_offset, inside] :
       {std::tuple{std::uint64_t{2}, true, true}, std::tuple{std::uint64_t{2}, false, true},
        std::tuple{std::uint64_t{1000000000}, true, false},
        std::tuple{std::uint64_t{1000000000}, false, false}}) {
    SCOPED_TRACE(std::to_string(ns_per_tick) + (with_offset ? " with offset" : " no offset"));
    // A copy the lambda below can capture (clang refuses to capture a
    // structured binding before C++20's P1091 support).
    const bool declare_offset = with_offset;
    PlantedDump dump;
    ASSERT_EQ(dump.gen().set_delegate_time_scale(kBackend, TickRatio{ns_per_tick, 1}), Error::kOk);
    dump.execute([&](etdump::ETDumpGen& gen) {
      // Delegate tick 0 is now: inside the call.
      const Ticks origin = dump.now();
      if (declare_offset) {
        EXPECT_EQ(gen.set_delegate_clock_offset(kBackend, static_cast<std::int64_t>(origin)),
                  Error::kOk);
      }
      // The call must last longer than the two events' 4 ns.
      dump.after(dump.now() + 8);
      EXPECT_EQ(gen.log_profiling_delegate(nullptr, kFirst, 1, 2), Error::kOk);
      EXPECT_EQ(gen.log_profiling_delegate(nullptr, kSecond, 2, 3), Error::kOk);
      dump.after(dump.now() + 8);
    });
    const std::vector<RuleResult> results = check_artifacts(dump.parsed(), record_with_map());
    EXPECT_EQ(rule(results, "events.balanced").outcome, inside ? Outcome::kPass : Outcome::kFail)
        << rule(results, "events.balanced").detail;
  }
}

#if defined(GLASSBOX_ETDUMP_FIXTURE_DIR) && defined(GLASSBOX_EXECUTORCH_STRING_IDS_DUMP)
etrecord::ETRecord executorch_record(const std::string& name) {
  StatusOr<etrecord::ETRecord> record =
      etrecord::ETRecord::load(std::string(GLASSBOX_TESTDATA_DIR) + "/executorch/" + name);
  EXPECT_TRUE(record.ok()) << record.status().message();
  return *record;
}

TEST(ArtifactRulesTest, ExecuTorchsStringIdDumpPassesWithItsETRecord) {
  // Two executions, every identifier of the map logged inside the call.
  StatusOr<etdump::ETDumpFile> dump = etdump::load_etdump_file(GLASSBOX_EXECUTORCH_STRING_IDS_DUMP);
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  const std::vector<RuleResult> results =
      check_artifacts(*dump, executorch_record("string_ids.etrecord"));
  for (const RuleResult& r : results) EXPECT_EQ(r.outcome, Outcome::kPass) << r.rule << r.detail;
}

TEST(ArtifactRulesTest, ExecuTorchStyleDumpFailsCoverageOnTheIdentifierNoMapHas) {
  // The fixture's delegate logs "Fancy Fusion", which int_ids.etrecord's
  // map lacks (testdata/executorch/README.md), and ids 2 to 4 are mapped
  // but never logged.
  StatusOr<etdump::ETDumpFile> dump =
      etdump::load_etdump_file(std::string(GLASSBOX_ETDUMP_FIXTURE_DIR) + "/executorch_style.etdp");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  const std::vector<RuleResult> results =
      check_artifacts(*dump, executorch_record("int_ids.etrecord"));
  EXPECT_EQ(rule(results, "coverage.logged_in_map").outcome, Outcome::kFail);
  EXPECT_THAT(rule(results, "coverage.logged_in_map").detail,
              HasSubstr("\"Fancy Fusion\" logged at instruction 1 is not in the map"));
  EXPECT_EQ(rule(results, "coverage.map_logged").outcome, Outcome::kFail);
  // The hand-written fixture logs "Fancy Fusion" (ending at 1840) after id
  // 1 (ending at 1850): not the order of a runtime that logs events as they
  // end, or after its loop in execution order.
  EXPECT_EQ(rule(results, "time.monotonic").outcome, Outcome::kFail);
  EXPECT_THAT(rule(results, "time.monotonic").detail,
              HasSubstr("\"Fancy Fusion\" at instruction 1 of run 1 ends 10 ns before"));
  EXPECT_EQ(rule(results, "ids.set").outcome, Outcome::kPass);
  EXPECT_EQ(rule(results, "events.balanced").outcome, Outcome::kPass);
}
#endif

}  // namespace
}  // namespace glassbox::conformance
