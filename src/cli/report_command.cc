// `glassbox report --etdump R.etdp [--etrecord M.etrecord] [--debug-data D.bin]
//   [--baseline OLD.etdp] [--execution N] [--skip-first N] [--title TEXT]
//   [--threshold T] [--threshold-metric M] [--timeline-events N]
//   [--delegate-time-scale BACKEND=NUM/DEN]... -o report.html`
// Reads the files, builds the Inspector (and the numeric comparison and the
// baseline when asked), and writes the report layer's page atomically.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/compare_runs.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/inspector/numeric.h"
#include "glassbox/inspector/quant.h"
#include "glassbox/io/file.h"
#include "glassbox/io/output_files.h"
#include "glassbox/report/report.h"
#include "src/cli/commands.h"
#include "src/cli/inspect_files.h"
#include "src/cli/plugin_option.h"
#include "src/cli/time_scale_options.h"

namespace glassbox::cli {
namespace {

struct ReportCommandOptions {
  std::string etdump;
  std::string etrecord;
  std::string debug_data;
  std::string baseline;
  std::string compare;
  std::string compare_etrecord;
  std::string output;
  std::optional<std::uint32_t> execution;
  std::uint32_t skip_first = 0;
  std::string title;
  std::optional<double> threshold;
  std::string threshold_metric = "max_abs";
  std::size_t timeline_events = report::ReportOptions{}.timeline_event_limit;
  std::vector<std::string> delegate_time_scales;
  bool allow_fingerprint_mismatch = false;
};

// The command line alone: a failure here is a usage error (exit code 2).
Status check_report_usage(const ReportCommandOptions& options) {
  if (!options.debug_data.empty() && options.etrecord.empty()) {
    return Status(Error::kInvalidArgument,
                  "--debug-data needs --etrecord (an ETRecord lowered with --reference-inputs or "
                  "--reference-seed) to compare the values with");
  }
  if (options.compare.empty() != options.compare_etrecord.empty()) {
    return Status(Error::kInvalidArgument,
                  "--compare and --compare-etrecord go together: the other run's ETDump and the "
                  "ETRecord of its program");
  }
  if (!options.compare.empty() && options.etrecord.empty()) {
    return Status(Error::kInvalidArgument,
                  "--compare needs --etrecord: the two programs' ops are joined through their "
                  "ETRecords' graphs");
  }
  GLASSBOX_RETURN_IF_ERROR(parse_delegate_time_scales(options.delegate_time_scales).status());
  return check_outputs_are_not_inputs({options.etdump, options.etrecord, options.debug_data,
                                       options.baseline, options.compare, options.compare_etrecord},
                                      {options.output});
}

// The title the page shows: --title, else the ETRecord's (or ETDump's) file
// name without its extension.
std::string page_title(const ReportCommandOptions& options) {
  if (!options.title.empty()) return options.title;
  const std::string& named = options.etrecord.empty() ? options.etdump : options.etrecord;
  return std::filesystem::path(named).stem().string();
}

StatusOr<inspector::NumericReport> numeric_report(const ReportCommandOptions& options,
                                                  const etrecord::ETRecord& record,
                                                  std::span<const std::uint8_t> debug_data,
                                                  std::uint32_t execution) {
  inspector::NumericOptions numeric;
  GLASSBOX_ASSIGN_OR_RETURN(numeric.threshold_metric,
                            inspector::parse_comparator(options.threshold_metric));
  numeric.threshold = options.threshold;
  numeric.execution = execution;
  numeric.allow_fingerprint_mismatch = options.allow_fingerprint_mismatch;
  GLASSBOX_RETURN_IF_ERROR(inspector::check_has_references(record).with_context(options.etrecord));
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(options.etdump));
  StatusOr<inspector::NumericReport> report =
      inspector::compare_numerics(dump, record, debug_data, numeric);
  if (!report.ok()) return report.status().with_context(options.etdump);
  return report;
}

Status write_report(const ReportCommandOptions& options, std::ostream& out) {
  inspector::InspectorOptions inspector_options;
  inspector_options.skip_first_runs = options.skip_first;
  inspector_options.allow_fingerprint_mismatch = options.allow_fingerprint_mismatch;
  GLASSBOX_ASSIGN_OR_RETURN(inspector_options.delegate_time_scales,
                            parse_delegate_time_scales(options.delegate_time_scales));

  std::optional<etrecord::ETRecord> record;
  if (!options.etrecord.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(record, etrecord::ETRecord::load(options.etrecord));
  }
  const etrecord::ETRecord* record_ptr = record.has_value() ? &*record : nullptr;
  std::vector<std::uint8_t> debug_data;
  if (!options.debug_data.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(debug_data, io::read_file(options.debug_data));
  }
  GLASSBOX_ASSIGN_OR_RETURN(
      inspector::Inspector current,
      inspect_file(options.etdump, record_ptr, debug_data, inspector_options));

  report::ReportOptions report_options;
  report_options.title = page_title(options);
  report_options.execution = options.execution;
  report_options.timeline_event_limit = options.timeline_events;
  report::ReportInputs inputs{.current = &current, .etrecord = record_ptr};

  std::optional<inspector::Inspector> baseline;
  if (!options.baseline.empty()) {
    // The same program's earlier run: same ETRecord and options, no values.
    GLASSBOX_ASSIGN_OR_RETURN(baseline,
                              inspect_file(options.baseline, record_ptr, {}, inspector_options));
    inputs.baseline = &*baseline;
  }
  std::optional<inspector::NumericReport> numeric;
  std::optional<inspector::QuantReport> quant;
  if (!options.debug_data.empty()) {
    // The values compared are those of the execution the timeline shows.
    StatusOr<std::uint32_t> execution = report::timeline_execution(current, report_options);
    if (!execution.ok()) return execution.status().with_context(options.etdump);
    GLASSBOX_ASSIGN_OR_RETURN(numeric,
                              numeric_report(options, *record_ptr, debug_data, *execution));
    inputs.numeric = &*numeric;
    // An int8 model lowered with its quantization references: the quant chart.
    if (!record_ptr->isolated_op_outputs.empty()) {
      inspector::NumericOptions quant_options;
      quant_options.execution = *execution;
      quant_options.allow_fingerprint_mismatch = options.allow_fingerprint_mismatch;
      GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(options.etdump));
      StatusOr<inspector::QuantReport> report =
          inspector::compare_quantization(dump, *record_ptr, debug_data, quant_options);
      if (!report.ok()) return report.status().with_context(options.etdump);
      quant = std::move(report).value();
      inputs.quant = &*quant;
    }
  }
  std::optional<inspector::RunComparison> comparison;
  if (!options.compare.empty()) {
    // Another program of the same source model, joined per source op as
    // `glassbox compare` does.
    GLASSBOX_ASSIGN_OR_RETURN(
        comparison,
        inspector::compare_run_files({options.etdump, options.etrecord},
                                     {options.compare, options.compare_etrecord},
                                     {options.skip_first, backends::raw_trace_decoders()}));
    inputs.comparison = &*comparison;
  }
  StatusOr<std::string> page = report::render_report(inputs, report_options);
  if (!page.ok()) return page.status().with_context(options.etdump);
  GLASSBOX_RETURN_IF_ERROR(io::write_file_atomically(options.output, *page));
  out << "wrote " << options.output << " (" << page->size() / 1024 << " KiB)\n";
  out.flush();
  return Status();
}

constexpr const char* kDescription =
    "Write one self-contained HTML page about a run: a summary (model, backends, executions, "
    "time unit, coverage, dropped events, fingerprint check), the ops table (sortable, "
    "filterable; fused and decomposed rows marked), the top ops, the module tree (click to "
    "filter), one execution's timeline (zoomable, one lane per thread), and with --debug-data "
    "the numeric error per op, with --baseline the per-op deltas, with --compare the per-layer "
    "comparison with another program of the same model (another backend, int8 vs float). With "
    "--etrecord it also draws the model's graph. It opens offline and can be sent as one file. "
    "Charts are explained in docs/report.md";

}  // namespace

void add_report_commands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<ReportCommandOptions>();
  CLI::App* command = app.add_subcommand("report", kDescription);
  command->add_option("--etdump", options->etdump, "the ETDump file (.etdp), ours or ExecuTorch's")
      ->required();
  command->add_option("--etrecord", options->etrecord,
                      "the program's ETRecord: names events after source operators and modules");
  add_plugin_option(*command, /*for_decoding=*/true);
  command->add_option(
      "--debug-data", options->debug_data,
      "the run's debug-data file (run --debug-level intermediates --debug-data D.bin): adds the "
      "numeric error per op against the ETRecord's references (lower --reference-seed S or "
      "--reference-inputs X.npy; run with the same input)");
  command->add_option(
      "--baseline", options->baseline,
      "an earlier ETDump of the same program: adds per-op deltas, regressions first");
  command->add_option(
      "--compare", options->compare,
      "the ETDump of another program of the same source model (another backend, int8 vs float, "
      "another delegate version): adds the per-layer comparison, ops joined as `glassbox compare` "
      "joins them; needs --compare-etrecord and --etrecord");
  command->add_option("--compare-etrecord", options->compare_etrecord,
                      "the ETRecord of --compare's program");
  command->add_option("-o,--output", options->output, "the HTML file to write (never an input)")
      ->required();
  command->add_option("--execution", options->execution,
                      "the execution (0-based \"Execute\" run) the timeline shows and the numeric "
                      "chart compares; default: the median one by Method::execute time");
  command
      ->add_option("--skip-first", options->skip_first,
                   "ignore the first N executions (warm-up) in the table and charts")
      ->capture_default_str();
  command->add_option("--title", options->title,
                      "what the page calls the model; default: the ETRecord's (else the "
                      "ETDump's) file name without extension");
  command
      ->add_option("--threshold", options->threshold,
                   "with --debug-data: a row fails when the threshold metric is worse than "
                   "this (defaults: max_abs 1e-3, l1 1e-4, mse 1e-6, snr 40 dB, cosine 0.9999)")
      ->check(finite_number());
  command
      ->add_option("--threshold-metric", options->threshold_metric,
                   "with --debug-data: the comparator plotted and thresholded")
      ->check(CLI::IsMember({"max_abs", "l1", "mse", "snr", "cosine"}))
      ->capture_default_str();
  command
      ->add_option("--timeline-events", options->timeline_events,
                   "most events the timeline carries; a larger execution keeps its longest "
                   "events and the page says so")
      ->check(CLI::Range(std::size_t{1}, std::size_t{10000000}))
      ->capture_default_str();
  add_delegate_time_scale_option(*command, options->delegate_time_scales);
  command->add_flag("--allow-fingerprint-mismatch", options->allow_fingerprint_mismatch,
                    "join an ETDump and an ETRecord of different programs anyway");
  command->callback([options, &context] {
    run_command(
        context, [&] { return check_report_usage(*options); },
        [&] { return write_report(*options, *context.out); });
  });
}

}  // namespace glassbox::cli
