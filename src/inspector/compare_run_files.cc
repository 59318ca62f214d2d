// compare_runs from files: each run's ETDump joined with its own ETRecord,
// a dump given with another program's ETRecord refused in words that fit
// `glassbox compare` (it has no --allow-fingerprint-mismatch).

#include <memory>

#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etdump/raw_trace.h"
#include "glassbox/inspector/compare_runs.h"

namespace glassbox::inspector {
namespace {

struct LoadedRun {
  etrecord::ETRecord record;
  Inspector inspector;
};

StatusOr<std::unique_ptr<LoadedRun>> load_run(const RunFiles& files,
                                              const CompareRunsOptions& options) {
  GLASSBOX_ASSIGN_OR_RETURN(etrecord::ETRecord record, etrecord::ETRecord::load(files.etrecord));
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(files.etdump));
  if (etdump::count_raw_traces(dump) > 0) {
    // Per-op events the delegate left to its plug-in's decoder: compared
    // as if logged directly, as inspect and report see them.
    const etdump::RawTraceDecoderLookup none = [](std::string_view) {
      return GlassboxRawTraceDecoder{nullptr};
    };
    const StatusOr<etdump::RawTraceExpansion> expanded =
        etdump::expand_raw_traces(&dump, options.decoders ? options.decoders : none);
    if (!expanded.ok()) return expanded.status().with_context(files.etdump);
  }
  InspectorOptions inspector_options;
  inspector_options.skip_first_runs = options.skip_first_runs;
  StatusOr<Inspector> joined = Inspector::create(dump, &record, {}, inspector_options);
  if (!joined.ok() && joined.status().error() == Error::kMismatch) {
    return Status(Error::kMismatch, files.etdump + ": not a run of the program of " +
                                        files.etrecord +
                                        " (their fingerprints differ): give each ETDump "
                                        "followed by its own program's ETRecord");
  }
  if (!joined.ok()) return joined.status().with_context(files.etdump);
  return std::make_unique<LoadedRun>(LoadedRun{std::move(record), std::move(*joined)});
}

}  // namespace

StatusOr<RunComparison> compare_run_files(const RunFiles& a, const RunFiles& b,
                                          const CompareRunsOptions& options) {
  GLASSBOX_ASSIGN_OR_RETURN(auto run_a, load_run(a, options));
  GLASSBOX_ASSIGN_OR_RETURN(auto run_b, load_run(b, options));
  StatusOr<RunComparison> comparison = compare_runs({&run_a->inspector, &run_a->record, a.etdump},
                                                    {&run_b->inspector, &run_b->record, b.etdump});
  if (!comparison.ok()) return comparison.status().with_context(a.etrecord + " and " + b.etrecord);
  return comparison;
}

}  // namespace glassbox::inspector
