#include "src/etdump/reader/test_etdump_builder.h"

namespace glassbox::etdump::test_util {

namespace fb = ::etdump;

TestETDump& TestETDump::run(std::string name, std::vector<std::string> allocators) {
  runs_.push_back(Run{std::move(name), std::move(allocators), {}});
  return *this;
}

TestETDump& TestETDump::event(flatbuffers::Offset<fb::Event> event) {
  if (runs_.empty()) run("Execute");
  runs_.back().events.push_back(event);
  return *this;
}

std::vector<std::uint8_t> TestETDump::finish(bool size_prefixed) {
  std::vector<flatbuffers::Offset<fb::RunData>> runs;
  for (const Run& r : runs_) {
    std::vector<flatbuffers::Offset<fb::Allocator>> allocators;
    for (const std::string& a : r.allocators) {
      allocators.push_back(fb::CreateAllocatorDirect(fbb_, a.c_str()));
    }
    runs.push_back(fb::CreateRunDataDirect(fbb_, r.name.c_str(), -1, &allocators, &r.events));
  }
  std::vector<flatbuffers::Offset<flatbuffers::String>> names;
  for (const std::string& n : counter_names_) names.push_back(fbb_.CreateString(n));
  const auto root = fb::CreateETDumpDirect(
      fbb_, version_, &runs, tick_ratio_ ? &*tick_ratio_ : nullptr, nullptr, 0, nullptr, 0,
      scales_.empty() ? nullptr : &scales_, has_counter_names_ ? &names : nullptr);
  if (size_prefixed) {
    fb::FinishSizePrefixedETDumpBuffer(fbb_, root);
  } else {
    fb::FinishETDumpBuffer(fbb_, root);
  }
  return bytes_of(fbb_);
}

flatbuffers::Offset<fb::Event> make_counted_profile(flatbuffers::FlatBufferBuilder& fbb,
                                                    std::int32_t delegate_id, std::uint64_t start,
                                                    std::uint64_t end,
                                                    const std::vector<fb::Counter>& counters) {
  const auto p = fb::CreateProfileEventDirect(fbb, nullptr, 0, 0, delegate_id, nullptr, nullptr,
                                              start, end, -1, fb::TimeSource::Unknown, &counters);
  return fb::CreateEvent(fbb, p);
}

flatbuffers::Offset<fb::Event> make_profile(flatbuffers::FlatBufferBuilder& fbb, const char* name,
                                            std::int32_t chain, std::int32_t instruction,
                                            std::uint64_t start, std::uint64_t end) {
  const auto p =
      fb::CreateProfileEventDirect(fbb, name, chain, instruction, -1, nullptr, nullptr, start, end);
  return fb::CreateEvent(fbb, p);
}

flatbuffers::Offset<fb::Event> make_delegate_profile(flatbuffers::FlatBufferBuilder& fbb,
                                                     std::int32_t delegate_id,
                                                     std::int32_t instruction, std::uint64_t start,
                                                     std::uint64_t end,
                                                     const std::vector<std::uint8_t>& metadata) {
  const auto p = fb::CreateProfileEventDirect(fbb, nullptr, 0, instruction, delegate_id, nullptr,
                                              &metadata, start, end);
  return fb::CreateEvent(fbb, p);
}

flatbuffers::Offset<fb::Event> make_allocation(flatbuffers::FlatBufferBuilder& fbb,
                                               std::int32_t allocator_id, std::uint64_t size) {
  return fb::CreateEvent(fbb, 0, fb::CreateAllocationEvent(fbb, allocator_id, size));
}

flatbuffers::Offset<fb::Event> make_debug_int(flatbuffers::FlatBufferBuilder& fbb,
                                              std::uint64_t chain, std::int32_t instruction,
                                              std::int64_t value) {
  const auto v = fb::CreateValue(fbb, fb::ValueType::Int, 0, 0, fb::CreateInt(fbb, value));
  return fb::CreateEvent(fbb, 0, 0, fb::CreateDebugEvent(fbb, chain, instruction, v));
}

std::vector<std::uint8_t> bytes_of(const flatbuffers::FlatBufferBuilder& fbb) {
  return std::vector<std::uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace glassbox::etdump::test_util
