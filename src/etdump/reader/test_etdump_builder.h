#pragma once
// Test helper: builds ETDump buffers directly with FlatBuffers' generated
// Create* functions, so reader tests do not depend on our writer
// (ETDumpGen). Events are built by the test with `fbb()`; the builder
// assembles runs and the root.
//
//   TestETDump b;
//   b.run("Execute", {"planned"});
//   b.event(make_profile(b.fbb(), "OPERATOR_CALL", 0, 0, 100, 200));
//   std::vector<uint8_t> bytes = b.finish();

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "glassbox/schema/etdump_generated.h"

namespace glassbox::etdump::test_util {

class TestETDump {
 public:
  TestETDump() = default;

  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

  /// Starts a new run; later `event()` calls add to it.
  TestETDump& run(std::string name, std::vector<std::string> allocators = {});
  TestETDump& event(flatbuffers::Offset<::etdump::Event> event);

  /// Root fields.
  TestETDump& version(std::uint32_t v) {
    version_ = v;
    return *this;
  }
  TestETDump& tick_ratio(std::uint64_t num, std::uint64_t den) {
    tick_ratio_ = ::etdump::TickRatio(num, den);
    return *this;
  }

  /// A delegate time scale; a null backend or ratio leaves that field out,
  /// as does a null host clock offset.
  TestETDump& delegate_time_scale(
      const char* backend, const ::etdump::TickRatio* ratio,
      flatbuffers::Optional<std::int64_t> host_offset_ns = flatbuffers::nullopt) {
    scales_.push_back(
        ::etdump::CreateDelegateTimeScaleDirect(fbb_, backend, ratio, host_offset_ns));
    return *this;
  }

  /// The dump's counter names (ETDump.counter_names); none by default.
  TestETDump& counter_names(std::vector<std::string> names) {
    counter_names_ = std::move(names);
    has_counter_names_ = true;
    return *this;
  }

  /// Builds the buffer (size-prefixed unless told otherwise). Call once.
  std::vector<std::uint8_t> finish(bool size_prefixed = true);

 private:
  struct Run {
    std::string name;
    std::vector<std::string> allocators;
    std::vector<flatbuffers::Offset<::etdump::Event>> events;
  };
  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<Run> runs_;
  std::uint32_t version_ = 0;
  std::optional<::etdump::TickRatio> tick_ratio_;
  std::vector<flatbuffers::Offset<::etdump::DelegateTimeScale>> scales_;
  std::vector<std::string> counter_names_;
  bool has_counter_names_ = false;
};

/// A profile event with a name (operator or framework event).
flatbuffers::Offset<::etdump::Event> make_profile(flatbuffers::FlatBufferBuilder& fbb,
                                                  const char* name, std::int32_t chain,
                                                  std::int32_t instruction, std::uint64_t start,
                                                  std::uint64_t end);

/// A delegate profile event with an int identifier, no name and the given
/// metadata (present even when empty, as ExecuTorch writes it).
flatbuffers::Offset<::etdump::Event> make_delegate_profile(
    flatbuffers::FlatBufferBuilder& fbb, std::int32_t delegate_id, std::int32_t instruction,
    std::uint64_t start, std::uint64_t end, const std::vector<std::uint8_t>& metadata);

/// A delegate profile event with an int identifier and `counters`.
flatbuffers::Offset<::etdump::Event> make_counted_profile(
    flatbuffers::FlatBufferBuilder& fbb, std::int32_t delegate_id, std::uint64_t start,
    std::uint64_t end, const std::vector<::etdump::Counter>& counters);

flatbuffers::Offset<::etdump::Event> make_allocation(flatbuffers::FlatBufferBuilder& fbb,
                                                     std::int32_t allocator_id, std::uint64_t size);

/// A debug event holding an Int value.
flatbuffers::Offset<::etdump::Event> make_debug_int(flatbuffers::FlatBufferBuilder& fbb,
                                                    std::uint64_t chain, std::int32_t instruction,
                                                    std::int64_t value);

/// The buffer's bytes as a vector (size prefix included, if any).
std::vector<std::uint8_t> bytes_of(const flatbuffers::FlatBufferBuilder& fbb);

}  // namespace glassbox::etdump::test_util
