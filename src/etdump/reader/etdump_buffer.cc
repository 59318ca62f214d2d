#include "glassbox/etdump/etdump_buffer.h"

#include <utility>

#include "glassbox/io/file.h"
#include "src/etdump/reader/decode.h"
#include "src/etdump/reader/verified_buffer.h"

namespace glassbox::etdump {

struct ETDumpBuffer::Verified {
  VerifiedBuffer buffer;
};

ProfileEventRef ProfileEventRef::of(const ProfileEvent& event) {
  ProfileEventRef ref;
  if (event.name) ref.name = *event.name;
  ref.chain_index = event.chain_index;
  ref.instruction_id = event.instruction_id;
  ref.delegate_debug_id_int = event.delegate_debug_id_int;
  if (event.delegate_debug_id_str) ref.delegate_debug_id_str = *event.delegate_debug_id_str;
  if (event.delegate_debug_metadata) ref.delegate_debug_metadata = *event.delegate_debug_metadata;
  ref.start_time = event.start_time;
  ref.end_time = event.end_time;
  ref.thread_index = event.thread_index;
  ref.time_source = event.time_source;
  ref.counters = event.counters;
  return ref;
}

StatusOr<ETDumpBuffer> ETDumpBuffer::decode(ETDumpBuffer out, std::span<const std::uint8_t> bytes,
                                            std::string_view source_name) {
  const std::string source(source_name);
  // The buffer points into storage that later moves of `out` keep.
  auto verified = VerifiedBuffer::verify(bytes);
  if (!verified.ok()) return verified.status().with_context(source);
  out.verified_ = std::make_unique<Verified>(Verified{std::move(*verified)});
  auto skeleton = decode_etdump(out.verified_->buffer, {.profile_events = false},
                                &out.profile_events_, &out.raw_traces_);
  if (!skeleton.ok()) return skeleton.status().with_context(source);
  out.skeleton_ = std::move(*skeleton);
  return out;
}

StatusOr<ETDumpBuffer> ETDumpBuffer::parse(std::vector<std::uint8_t> bytes,
                                           std::string_view source_name) {
  ETDumpBuffer out;
  out.vector_ = std::move(bytes);
  const std::span<const std::uint8_t> view(out.vector_);
  return decode(std::move(out), view, source_name);
}

StatusOr<ETDumpBuffer> ETDumpBuffer::load(const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(io::FileBytes file, io::read_file_bytes(path));
  ETDumpBuffer out;
  const std::span<const std::uint8_t> view = file.bytes();
  out.file_ = std::move(file);
  return decode(std::move(out), view, path);
}

ETDumpBuffer::ETDumpBuffer(ETDumpBuffer&&) noexcept = default;
ETDumpBuffer& ETDumpBuffer::operator=(ETDumpBuffer&&) noexcept = default;
ETDumpBuffer::~ETDumpBuffer() = default;

void ETDumpBuffer::for_each_profile_event(const ProfileEventVisitor& visit) const {
  if (verified_ != nullptr) visit_profile_events(verified_->buffer, visit);
}

}  // namespace glassbox::etdump
