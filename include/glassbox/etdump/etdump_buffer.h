#pragma once
/// @file
/// A large ETDump read without materialising its profile events. A dump of
/// a million events decodes to several hundred bytes an event as an
/// ETDumpFile (strings, optionals, the Event variant), six times the file;
/// the Inspector needs each profile event once, to group it. ETDumpBuffer
/// keeps the verified bytes, decodes everything else (runs, counters,
/// debug and allocation events: the `skeleton`), and hands out each profile
/// event as a view into the bytes, in file order.
///
///   GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpBuffer dump,
///                             etdump::ETDumpBuffer::load("run.etdp"));
///   dump.for_each_profile_event([](std::size_t run, const etdump::ProfileEventRef& e) { ... });
///
/// Verification is the same as parse_etdump's, and whole before anything
/// is returned: every event, profile events included, is checked by
/// `load`/`parse`, so visiting cannot fail.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/io/file.h"

namespace glassbox::etdump {

/// A ProfileEvent whose strings and metadata point into the dump's bytes
/// (or into an ETDumpFile's event): valid while those live.
struct ProfileEventRef {
  std::optional<std::string_view> name;
  std::int32_t chain_index = 0;
  InstructionId instruction_id;
  DelegateDebugIntId delegate_debug_id_int;
  std::optional<std::string_view> delegate_debug_id_str;
  std::optional<std::span<const std::uint8_t>> delegate_debug_metadata;
  Ticks start_time = 0;
  Ticks end_time = 0;
  std::optional<std::int32_t> thread_index;
  std::optional<TimeSource> time_source;
  /// Glassbox extension: the event's counters (names index
  /// `ETDumpFile::counter_names`, checked by the reader); empty when none.
  std::span<const Counter> counters;

  /// A view of `event`.
  static ProfileEventRef of(const ProfileEvent& event);
};

/// Called once per profile event, in file order, with its run's index.
using ProfileEventVisitor = std::function<void(std::size_t run, const ProfileEventRef& event)>;

class ETDumpBuffer {
 public:
  /// Verifies and decodes `bytes` (kept, moved in). Errors as parse_etdump,
  /// naming `source_name`.
  static StatusOr<ETDumpBuffer> parse(std::vector<std::uint8_t> bytes,
                                      std::string_view source_name);
  /// Reads the file at `path` (io::read_file's limits) and parses it.
  static StatusOr<ETDumpBuffer> load(const std::string& path);

  ETDumpBuffer(ETDumpBuffer&&) noexcept;
  ETDumpBuffer& operator=(ETDumpBuffer&&) noexcept;
  ~ETDumpBuffer();

  /// The dump with every run, counter, debug and allocation event, but no
  /// profile events (`RunData::events` holds the others, in file order).
  const ETDumpFile& skeleton() const { return skeleton_; }
  /// Profile events per run, as many as the skeleton leaves out.
  std::size_t profile_events() const { return profile_events_; }
  /// Raw traces among them (glassbox/etdump/raw_trace.h): a dump that has
  /// any is read as an ETDumpFile and expanded before it is inspected.
  std::size_t raw_traces() const { return raw_traces_; }
  /// Calls `visit` for every profile event of every run, in file order.
  void for_each_profile_event(const ProfileEventVisitor& visit) const;

 private:
  struct Verified;
  ETDumpBuffer() = default;
  // Verifies and decodes `bytes`, which point into vector_ or file_.
  static StatusOr<ETDumpBuffer> decode(ETDumpBuffer out, std::span<const std::uint8_t> bytes,
                                       std::string_view source_name);

  // The bytes: a caller's vector (parse) or a file read unfilled (load).
  std::vector<std::uint8_t> vector_;
  io::FileBytes file_;
  std::unique_ptr<Verified> verified_;  // Points into the bytes (or their aligned copy).
  ETDumpFile skeleton_;
  std::size_t profile_events_ = 0;
  std::size_t raw_traces_ = 0;
};

}  // namespace glassbox::etdump
