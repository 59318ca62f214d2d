// `glassbox inspect --etdump F|DIR|GLOB... [--etrecord R] [--debug-data D]
//   [--view events|ops|modules|reconcile|types|quant] [--float-etdump F --float-etrecord R]
//   [--format table|csv|tsv|json|chrome]
//   [--baseline B] [--skip-first N] [--time-unit ns|us|ms|ticks]
//   [--delegate-time-scale BACKEND=NUM/DEN]...
//   [--allow-fingerprint-mismatch] [-o FILE]
//   [--numeric [--comparators LIST|all] [--threshold T]
//              [--threshold-metric M] [--execution N] [--fail-on-exceed]]
//   [--jobs N] [--strict] [--tag-from-path P] [--group-by TAG]`
// The work is in the inspector library; this file only reads files, builds
// the Inspector and writes the rendering.

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/inspector/numeric.h"
#include "glassbox/inspector/quant.h"
#include "glassbox/io/file.h"
#include "glassbox/io/output_files.h"
#include "src/cli/commands.h"
#include "src/cli/fleet_options.h"
#include "src/cli/inspect_files.h"
#include "src/cli/inspect_fleet.h"
#include "src/cli/plugin_option.h"
#include "src/cli/terminal_width.h"
#include "src/cli/time_scale_options.h"

namespace glassbox::cli {
namespace {

struct InspectOptions {
  std::string etdump;  ///< etdumps[0]: the one dump of the one-dump modes.
  FleetOptions fleet;  ///< Every --etdump value, and how to read many.
  std::string group_by;
  std::string etrecord;
  std::string debug_data;
  std::string view = "ops";
  std::string format = "table";
  std::string baseline;
  std::uint32_t skip_first = 0;
  std::string time_unit;
  std::vector<std::string> delegate_time_scales;
  bool allow_fingerprint_mismatch = false;
  std::string output;
  // Numeric debugging.
  bool numeric = false;
  std::string comparators = "all";
  std::optional<double> threshold;
  std::string threshold_metric = "max_abs";
  std::uint32_t execution = 0;
  bool fail_on_exceed = false;
  // --view quant: the float twin's run, for the keep-in-float ranking.
  std::string float_etdump;
  std::string float_etrecord;
};

bool is_quant_view(const InspectOptions& options) { return options.view == "quant"; }

// What -o must not overwrite: every dump the --etdump values match (a
// folder's or glob's files, not only the values) and the other inputs.
std::vector<std::string> input_files(const InspectOptions& options) {
  std::vector<std::string> inputs = dump_files_to_protect(options.fleet.etdumps);
  inputs.insert(inputs.end(), {options.etrecord, options.debug_data, options.baseline,
                               options.float_etdump, options.float_etrecord});
  return inputs;
}

Status write_output(const std::string& text, const InspectOptions& options, std::ostream& out) {
  return write_text_output(text, options.output, input_files(options), out);
}

// `--numeric`: the comparison with the ETRecord's references instead of a
// timing view.
StatusOr<std::string> numeric_text(const InspectOptions& options, inspector::Format format,
                                   const etrecord::ETRecord* record,
                                   std::span<const std::uint8_t> debug_data, bool* exceeded) {
  inspector::NumericOptions numeric;
  GLASSBOX_ASSIGN_OR_RETURN(numeric.comparators, inspector::parse_comparators(options.comparators));
  GLASSBOX_ASSIGN_OR_RETURN(numeric.threshold_metric,
                            inspector::parse_comparator(options.threshold_metric));
  numeric.threshold = options.threshold;
  numeric.execution = options.execution;
  numeric.allow_fingerprint_mismatch = options.allow_fingerprint_mismatch;
  GLASSBOX_RETURN_IF_ERROR(inspector::check_has_references(*record).with_context(options.etrecord));
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(options.etdump));
  StatusOr<inspector::NumericReport> report =
      inspector::compare_numerics(dump, *record, debug_data, numeric);
  if (!report.ok()) return report.status().with_context(options.etdump);
  if (report->damaged_tensor_metadata > 0) {
    // The ETDump's own fault, whatever the debug data holds.
    const auto damaged =
        std::find_if(report->rows.begin(), report->rows.end(),
                     [](const inspector::NumericRow& r) { return r.metadata_damaged; });
    return Status(Error::kCorruptData,
                  options.etdump + ": " + std::to_string(report->damaged_tensor_metadata) +
                      " logged tensor(s) have damaged metadata (first: " + damaged->note + ")");
  }
  if (report->unreadable_tensors > 0) {
    return Status(Error::kMismatch,
                  options.debug_data + ": " + std::to_string(report->unreadable_tensors) +
                      " tensor(s) the ETDump logged lie outside this file (it is truncated, or "
                      "from another run: pass the --debug-data file `glassbox run` wrote with " +
                      options.etdump + ")");
  }
  *exceeded = report->first_failure.has_value();
  return inspector::render_numeric(*report, format);
}

// `--view quant`: per quantized op, float vs simulated int8 vs the run.
StatusOr<std::string> quant_text(const InspectOptions& options, inspector::Format format,
                                 const etrecord::ETRecord& record,
                                 std::span<const std::uint8_t> debug_data) {
  inspector::NumericOptions numeric;
  numeric.execution = options.execution;
  numeric.allow_fingerprint_mismatch = options.allow_fingerprint_mismatch;
  GLASSBOX_RETURN_IF_ERROR(inspector::check_has_references(record).with_context(options.etrecord));
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(options.etdump));
  std::optional<etdump::ETDumpFile> float_dump;
  std::optional<etrecord::ETRecord> float_record;
  inspector::FloatRun float_run;
  if (!options.float_etdump.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(float_dump, etdump::load_etdump_file(options.float_etdump));
    GLASSBOX_ASSIGN_OR_RETURN(float_record, etrecord::ETRecord::load(options.float_etrecord));
    float_run = {&*float_dump, &*float_record};
  }
  StatusOr<inspector::QuantReport> report =
      inspector::compare_quantization(dump, record, debug_data, numeric, float_run);
  if (!report.ok()) {
    const bool record_fault = report.message().starts_with("the ETRecord has no quantization");
    return report.status().with_context(record_fault ? options.etrecord : options.etdump);
  }
  return inspector::render_quant(*report, format);
}

// Whether the dumps are read as a fleet (aggregated, tagged) rather than
// as the one file of the one-dump modes.
bool reads_fleet(const InspectOptions& options) {
  return names_many_dumps(options.fleet.etdumps) || !options.fleet.tag_from_path.empty() ||
         !options.group_by.empty() || options.fleet.strict;
}

// The modes that read exactly one dump.
Status check_fleet_usage(const InspectOptions& options) {
  const bool one_dump_mode =
      options.numeric || !options.baseline.empty() || !options.debug_data.empty();
  if (one_dump_mode && options.fleet.etdumps.size() > 1) {
    return Status(Error::kInvalidArgument,
                  "--numeric, --baseline and --debug-data read one ETDump: give one --etdump");
  }
  if (!options.group_by.empty() && options.format == "chrome") {
    return Status(Error::kInvalidArgument,
                  "--group-by has no chrome form; use table, csv, tsv or json");
  }
  return Status();
}

// The command line alone: a failure here is a usage error (exit code 2).
Status check_inspect_usage(const InspectOptions& options) {
  if (options.output != "-") {
    GLASSBOX_RETURN_IF_ERROR(check_outputs_are_not_inputs(input_files(options), {options.output}));
  }
  GLASSBOX_RETURN_IF_ERROR(check_fleet_usage(options));
  if (is_quant_view(options)) {
    if (options.etrecord.empty() || options.debug_data.empty()) {
      return Status(Error::kInvalidArgument,
                    "--view quant needs --etrecord (an int8 model lowered with --reference-inputs "
                    "or --reference-seed) and --debug-data (from `glassbox run --debug-level "
                    "intermediates`)");
    }
    if (options.numeric || !options.baseline.empty() || options.fleet.etdumps.size() > 1) {
      return Status(Error::kInvalidArgument,
                    "--view quant reads one ETDump and combines with neither --numeric nor "
                    "--baseline");
    }
    if (options.float_etdump.empty() != options.float_etrecord.empty()) {
      return Status(Error::kInvalidArgument,
                    "--float-etdump and --float-etrecord go together (the float twin's run and "
                    "its ETRecord)");
    }
    if (options.format == "chrome") {
      return Status(Error::kInvalidArgument, "--view quant renders as table, csv, tsv or json");
    }
  } else if (!options.float_etdump.empty() || !options.float_etrecord.empty()) {
    return Status(Error::kInvalidArgument,
                  "--float-etdump and --float-etrecord apply to --view quant only");
  } else {
    GLASSBOX_RETURN_IF_ERROR(inspector::parse_view(options.view).status());
  }
  GLASSBOX_RETURN_IF_ERROR(inspector::parse_format(options.format).status());
  if (!options.time_unit.empty()) {
    GLASSBOX_RETURN_IF_ERROR(inspector::parse_time_unit(options.time_unit).status());
  }
  GLASSBOX_RETURN_IF_ERROR(parse_delegate_time_scales(options.delegate_time_scales).status());
  if (options.numeric) {
    if (options.etrecord.empty()) {
      return Status(Error::kInvalidArgument,
                    "--numeric needs --etrecord (an ETRecord lowered with --reference-inputs or "
                    "--reference-seed)");
    }
    if (options.debug_data.empty()) {
      return Status(Error::kInvalidArgument,
                    "--numeric needs --debug-data (the file `glassbox run --debug-level "
                    "intermediates` wrote)");
    }
    if (!options.baseline.empty()) {
      return Status(Error::kInvalidArgument, "--numeric and --baseline cannot be combined");
    }
    GLASSBOX_RETURN_IF_ERROR(inspector::parse_comparators(options.comparators).status());
    GLASSBOX_RETURN_IF_ERROR(inspector::parse_comparator(options.threshold_metric).status());
  } else if (options.fail_on_exceed) {
    return Status(Error::kInvalidArgument, "--fail-on-exceed applies to --numeric only");
  }
  return Status();
}

Status inspect(const InspectOptions& options, std::ostream& out, std::ostream* context_err) {
  GLASSBOX_ASSIGN_OR_RETURN(inspector::Format format, inspector::parse_format(options.format));
  if (is_quant_view(options)) {
    GLASSBOX_ASSIGN_OR_RETURN(etrecord::ETRecord record,
                              etrecord::ETRecord::load(options.etrecord));
    GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> data, io::read_file(options.debug_data));
    GLASSBOX_ASSIGN_OR_RETURN(std::string text, quant_text(options, format, record, data));
    return write_output(text, options, out);
  }
  GLASSBOX_ASSIGN_OR_RETURN(inspector::View view, inspector::parse_view(options.view));
  inspector::InspectorOptions inspector_options;
  inspector_options.skip_first_runs = options.skip_first;
  inspector_options.allow_fingerprint_mismatch = options.allow_fingerprint_mismatch;
  if (!options.time_unit.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(inspector_options.time_unit,
                              inspector::parse_time_unit(options.time_unit));
  }
  GLASSBOX_ASSIGN_OR_RETURN(inspector_options.delegate_time_scales,
                            parse_delegate_time_scales(options.delegate_time_scales));

  std::optional<etrecord::ETRecord> record;
  if (!options.etrecord.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(record, etrecord::ETRecord::load(options.etrecord));
  }
  std::vector<std::uint8_t> debug_data;
  if (!options.debug_data.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(debug_data, io::read_file(options.debug_data));
  }
  const etrecord::ETRecord* record_ptr = record.has_value() ? &*record : nullptr;
  if (options.numeric) {
    bool exceeded = false;
    GLASSBOX_ASSIGN_OR_RETURN(std::string text,
                              numeric_text(options, format, record_ptr, debug_data, &exceeded));
    GLASSBOX_RETURN_IF_ERROR(write_output(text, options, out));
    if (options.fail_on_exceed && exceeded) {
      return Status(Error::kMismatch,
                    "an operator exceeds the numeric threshold (--fail-on-exceed; the first "
                    "failure is marked above)");
    }
    return Status();
  }
  if (reads_fleet(options)) {
    if (options.numeric || !options.baseline.empty() || !options.debug_data.empty()) {
      return Status(Error::kInvalidArgument, options.etdump +
                                                 " names several dumps; --numeric, --baseline and "
                                                 "--debug-data read one ETDump file");
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::string text,
                              inspect_fleet(options.fleet, options.group_by, record_ptr,
                                            inspector_options, view, format, *context_err));
    return write_output(text, options, out);
  }
  // Only a timeline needs every event's occurrence (32 bytes an event).
  inspector_options.keep_occurrences = format == inspector::Format::kChrome;
  GLASSBOX_ASSIGN_OR_RETURN(
      inspector::Inspector current,
      inspect_file(options.etdump, record_ptr, debug_data, inspector_options));

  // Full names in a file or a pipe; a terminal's width on a terminal.
  const std::size_t table_width =
      table_width_for(out, !options.output.empty() && options.output != "-");
  if (format == inspector::Format::kChrome && options.baseline.empty()) {
    // Streamed: a million events' trace is half a gigabyte of text.
    return write_output_chunks(options.output, input_files(options), out,
                               [&current](const io::ChunkSink& write) {
                                 return inspector::write_chrome_trace(current, write);
                               });
  }
  std::string text;
  if (!options.baseline.empty()) {
    // The baseline is a warm-up-free run of the same program: same ETRecord
    // and options, but no debug data (values are not compared).
    GLASSBOX_ASSIGN_OR_RETURN(inspector::Inspector baseline,
                              inspect_file(options.baseline, record_ptr, {}, inspector_options));
    GLASSBOX_ASSIGN_OR_RETURN(text,
                              inspector::render_comparison(baseline, current, format, table_width));
  } else {
    text = inspector::render(current, view, format, table_width);
  }
  return write_output(text, options, out);
}

}  // namespace

void add_inspect_commands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* command = app.add_subcommand(
      "inspect",
      "Join an ETDump with its ETRecord: per-event, per-operator, per-module and "
      "reconciliation views, time per op type, as a table, CSV, TSV, JSON or a Chrome trace "
      "(formats in docs/inspector.md)");
  command
      ->add_option("--etdump", options->fleet.etdumps,
                   "the ETDump file (.etdp), ours or ExecuTorch's; several files, folders (their "
                   "*.etdp) or quoted globs aggregate many dumps of one program (docs/fleet.md)")
      ->required();
  command->add_option("--etrecord", options->etrecord,
                      "the program's ETRecord, ours or ExecuTorch's: names events after source "
                      "operators");
  command->add_option("--debug-data", options->debug_data,
                      "the debug-data file tensor offsets point into");
  command
      ->add_option("--view", options->view,
                   "events, ops, modules, reconcile or types (per source op type: count, total "
                   "and mean time, share, backends; fused rows split between their ops); or "
                   "quant (int8 models: per quantized op "
                   "the SQNR of float vs simulated int8 vs the run, isolated and accumulated, "
                   "worst first; needs --etrecord and --debug-data; docs/quantization.md)")
      ->check(CLI::IsMember({"events", "ops", "modules", "reconcile", "types", "quant"}))
      ->capture_default_str();
  command->add_option("--float-etdump", options->float_etdump,
                      "with --view quant: the float twin's ETDump (same inputs), to rank "
                      "keep-in-float candidates by SQNR gained per ms");
  command->add_option("--float-etrecord", options->float_etrecord,
                      "with --float-etdump: the float twin's ETRecord (aligned with the int8 one "
                      "operator by operator)");
  command
      ->add_option("--format", options->format,
                   "table (as wide as the terminal; every name whole in a file or a pipe), csv, "
                   "tsv, json or chrome")
      ->check(CLI::IsMember({"table", "csv", "tsv", "json", "chrome"}))
      ->capture_default_str();
  command->add_option("--baseline", options->baseline,
                      "an earlier ETDump: print per-op deltas against it instead of a view");
  command
      ->add_option("--skip-first", options->skip_first, "ignore the first N executions (warm-up)")
      ->capture_default_str();
  command
      ->add_option("--time-unit", options->time_unit,
                   "what the dump's raw timestamps are (overrides its tick ratio; "
                   "ExecuTorch-written files have none and default to ns)")
      ->check(CLI::IsMember({"ns", "us", "ms", "ticks"}));
  add_delegate_time_scale_option(*command, options->delegate_time_scales);
  command->add_flag("--allow-fingerprint-mismatch", options->allow_fingerprint_mismatch,
                    "join an ETDump and an ETRecord of different programs anyway");
  command->add_option("-o,--output", options->output, "write here instead of stdout");
  add_fleet_options(*command, options->fleet, "with several dumps: ");
  add_plugin_option(*command, /*for_decoding=*/true);
  command->add_option(
      "--group-by", options->group_by,
      "split the view by this tag's value (a first column in csv/tsv, a key in json, "
      "one table per value in a table)");
  command->add_flag("--numeric", options->numeric,
                    "numeric debugging: compare the run's logged values (--debug-data) with the "
                    "ETRecord's reference outputs and mark the first operator that goes wrong "
                    "(ETRecords from glassbox lower only: ExecuTorch's are pickles, not read)");
  command
      ->add_option("--comparators", options->comparators,
                   "with --numeric: max_abs,l1,mse,snr,cosine (comma-separated) or all")
      ->capture_default_str();
  command
      ->add_option("--threshold", options->threshold,
                   "with --numeric: a row fails when the threshold metric is worse than this "
                   "(defaults: max_abs 1e-3, l1 1e-4, mse 1e-6, snr 40 dB, cosine 0.9999)")
      ->check(finite_number());
  command
      ->add_option("--threshold-metric", options->threshold_metric,
                   "with --numeric: the comparator the threshold applies to")
      ->check(CLI::IsMember({"max_abs", "l1", "mse", "snr", "cosine"}))
      ->capture_default_str();
  command
      ->add_option("--execution", options->execution,
                   "with --numeric: which execution (0-based \"Execute\" run) to compare")
      ->capture_default_str();
  command->add_flag("--fail-on-exceed", options->fail_on_exceed,
                    "with --numeric: after printing, exit 1 when an operator exceeds the "
                    "threshold (as `run --expect` does), for scripts and CI");
  command->callback([options, &context] {
    run_command(
        context, [&] { return check_inspect_usage(*options); },
        [&] {
          options->etdump = options->fleet.etdumps.front();
          return inspect(*options, *context.out, context.err);
        });
  });
}

}  // namespace glassbox::cli
