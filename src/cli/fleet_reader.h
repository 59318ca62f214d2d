#pragma once
// The part `glassbox inspect` and `glassbox export` share for many dumps:
// expand the --etdump values, tag each dump, decode them in parallel and
// hand the results over in path order; a damaged dump, or one `work`
// refuses (another program's), is reported as one line naming it and
// skipped, or fatal with --strict. A progress line shows on a terminal.

#include <atomic>
#include <cstddef>
#include <functional>
#include <new>
#include <ostream>
#include <string>
#include <vector>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/etdump/etdump_reader.h"
#include "src/cli/dump_inputs.h"
#include "src/cli/inspect_files.h"
#include "src/cli/ordered_pool.h"
#include "src/cli/progress_line.h"

namespace glassbox::cli {

struct FleetOptions {
  std::vector<std::string> etdumps;  ///< Files, folders, globs.
  std::string tag_from_path;         ///< "" for none.
  unsigned jobs = 0;                 ///< 0: every core.
  bool strict = false;
  /// When set (by a signal handler: InterruptFlag), reading stops after the
  /// dump in hand and read_fleet fails with kFleetInterrupted.
  const std::atomic<bool>* stop = nullptr;
};

/// read_fleet's error when `stop` was set.
inline constexpr const char* kFleetInterrupted = "interrupted (SIGINT or SIGTERM): nothing written";

/// One dump and its tags (path pattern first, then its sidecar's).
struct DumpSource {
  std::string path;
  Tags tags;
};

struct FleetSummary {
  std::size_t used = 0;
  std::size_t skipped = 0;
};

/// The tags of `path`: from the pattern (which must match it), then the
/// sidecar's for names the path does not give.
StatusOr<Tags> tags_of(const std::string& path, const PathTagPattern* pattern);

/// "glassbox <command>: used N dumps, skipped M".
std::string summary_line(const std::string& command, const FleetSummary& summary);

/// Runs work(source, dump) on worker threads and consume(source, result) on
/// this thread in path order. Errors: the expansion's, --strict's first
/// skipped dump, consume's, or no usable dump at all.
template <typename T>
StatusOr<FleetSummary> read_fleet(
    const FleetOptions& options, const std::string& command, std::ostream& err,
    const std::function<StatusOr<T>(const DumpSource&, const etdump::ETDumpFile&)>& work,
    const std::function<Status(const DumpSource&, T&&)>& consume) {
  GLASSBOX_ASSIGN_OR_RETURN(const std::vector<std::string> paths,
                            expand_dump_paths(options.etdumps));
  std::optional<PathTagPattern> pattern;
  if (!options.tag_from_path.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(pattern, PathTagPattern::parse(options.tag_from_path));
  }
  struct Decoded {
    DumpSource source;
    StatusOr<T> result;
  };
  const std::function<Decoded(std::size_t)> decode = [&](std::size_t i) -> Decoded {
    DumpSource source{paths[i], {}};
    // An exception must not leave a worker thread (std::terminate would
    // skip the removal of a partial output): it fails this dump.
    try {
      StatusOr<Tags> tags = tags_of(paths[i], pattern ? &*pattern : nullptr);
      if (!tags.ok()) return {std::move(source), tags.status()};
      source.tags = std::move(*tags);
      // Raw traces expanded (inspect_files.h), as in the one-dump case.
      StatusOr<etdump::ETDumpFile> dump = load_expanded_etdump(paths[i]);
      if (!dump.ok()) return {std::move(source), dump.status()};
      StatusOr<T> result = work(source, *dump);
      if (!result.ok()) return {std::move(source), result.status().with_context(paths[i])};
      return {std::move(source), std::move(result)};
    } catch (const std::bad_alloc&) {
      return {std::move(source),
              Status(Error::kMemoryAllocationFailed, paths[i] + ": out of memory reading it")};
    }
  };

  FleetSummary summary;
  ProgressLine progress("glassbox " + command, "dumps");
  const std::function<Status(std::size_t, Decoded &&)> take = [&](std::size_t i,
                                                                  Decoded&& decoded) -> Status {
    if (options.stop != nullptr && options.stop->load(std::memory_order_relaxed)) {
      return Status(Error::kInvalidState, kFleetInterrupted);
    }
    progress.update(static_cast<long long>(i + 1), static_cast<long long>(paths.size()));
    if (!decoded.result.ok()) {
      if (options.strict) return decoded.result.status();
      progress.clear();
      err << "glassbox: skipped " << decoded.result.status().message() << "\n";
      ++summary.skipped;
      return Status();
    }
    ++summary.used;
    return consume(decoded.source, std::move(*decoded.result));
  };
  GLASSBOX_RETURN_IF_ERROR(for_each_in_order<Decoded>(
      paths.size(), options.jobs == 0 ? default_jobs() : options.jobs, decode, take));
  progress.clear();
  if (summary.used == 0) {
    return Status(Error::kNotFound, "no usable ETDump: all " + std::to_string(summary.skipped) +
                                        " were skipped (see above)");
  }
  return summary;
}

}  // namespace glassbox::cli
