#pragma once
// A test double that records which EventTracer methods were called and
// with what, so hook tests can check forwarding, gating and vanishing.

#include <string>
#include <utility>
#include <vector>

#include "glassbox/runtime/event_tracer.h"

namespace glassbox::runtime::testing {

struct RecordedCall {
  explicit RecordedCall(std::string m, std::string n = {}, std::int32_t id = -1)
      : method(std::move(m)), name(std::move(n)), int_id(id) {}

  std::string method;
  std::string name;  // name argument, "" for null
  std::int32_t int_id = -1;
  ChainId chain;
  InstructionId instruction;
  Ticks start = 0;
  Ticks end = 0;
  std::string metadata;
  ValueView::Kind value_kind = ValueView::Kind::kNone;
  LoggedValueKind logged_kind = LoggedValueKind::kIntermediateOutput;
};

class RecordingTracer final : public EventTracer {
 public:
  using EventTracer::log_intermediate_output_delegate;

  std::vector<RecordedCall> calls;
  /// What the next log_profiling_delegate returns (then kOk again).
  Error fail_next_log = Error::kOk;

  Error create_event_block(const char* name) override {
    calls.emplace_back("create_event_block", str(name));
    return Error::kOk;
  }
  EventTracerEntry start_profiling(const char* name, ChainId chain,
                                   InstructionId instruction) override {
    RecordedCall c("start_profiling", str(name));
    c.chain = chain;
    c.instruction = instruction;
    calls.push_back(c);
    EventTracerEntry e;
    e.tracer = this;
    return e;
  }
  Error end_profiling(const EventTracerEntry&) override {
    calls.emplace_back("end_profiling");
    return Error::kOk;
  }
  EventTracerEntry start_profiling_delegate(const char* name, DelegateDebugIntId id) override {
    calls.emplace_back("start_profiling_delegate", str(name), id.value);
    EventTracerEntry e;
    e.tracer = this;
    e.event_id = id.value;
    e.delegate_event_id_type = name ? DelegateDebugIdType::kStr : DelegateDebugIdType::kInt;
    return e;
  }
  Error end_profiling_delegate(const EventTracerEntry& entry, const void* metadata,
                               std::size_t len) override {
    RecordedCall c("end_profiling_delegate");
    c.int_id = static_cast<std::int32_t>(entry.event_id);
    c.metadata = bytes(metadata, len);
    calls.push_back(c);
    return Error::kOk;
  }
  Error log_profiling_delegate(const char* name, DelegateDebugIntId id, Ticks start, Ticks end,
                               const void* metadata, std::size_t len, TimeSource) override {
    RecordedCall c("log_profiling_delegate", str(name), id.value);
    c.start = start;
    c.end = end;
    c.metadata = bytes(metadata, len);
    calls.push_back(c);
    return std::exchange(fail_next_log, Error::kOk);
  }
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId id,
                                                const ValueView& value) override {
    RecordedCall c("log_intermediate_output_delegate", str(name), id.value);
    c.value_kind = value.kind();
    calls.push_back(c);
    return true;
  }
  Result<bool> log_value(const ValueView& value, LoggedValueKind kind) override {
    RecordedCall c("log_value");
    c.value_kind = value.kind();
    c.logged_kind = kind;
    calls.push_back(c);
    return true;
  }
  AllocatorId track_allocator(const char* name) override {
    calls.emplace_back("track_allocator", str(name));
    return AllocatorId(1);
  }
  void track_allocation(AllocatorId, std::size_t) override {
    calls.emplace_back("track_allocation");
  }
  const Clock& clock() const override { return clock_; }

 private:
  static std::string str(const char* s) { return s ? s : ""; }
  static std::string bytes(const void* p, std::size_t n) {
    return p ? std::string(static_cast<const char*>(p), n) : std::string();
  }
  Clock clock_ = Clock::steady();
};

}  // namespace glassbox::runtime::testing
