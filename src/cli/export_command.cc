// `glassbox export --etdump F|DIR|GLOB... --etrecord R --rows events|ops
//   -o OUT [--format ndjson|csv] [--jobs N] [--strict] [--tag-from-path P]
//   [--skip-first N] [--time-unit U] [--delegate-time-scale BACKEND=NUM/DEN]...`
// Rows for data engines (schema: docs/export-schema.md). Each dump is
// decoded, joined and turned into text on a worker thread; the text is
// appended in path order to a temporary file renamed over OUT at the end,
// so memory holds only the few dumps in flight.

#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/export_rows.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/io/output_files.h"
#include "src/cli/commands.h"
#include "src/cli/fleet_options.h"
#include "src/cli/fleet_reader.h"
#include "src/cli/interrupt.h"
#include "src/cli/plugin_option.h"
#include "src/cli/run_cli.h"
#include "src/cli/time_scale_options.h"

namespace glassbox::cli {
namespace {

struct ExportOptions {
  FleetOptions fleet;
  std::string etrecord;
  std::string rows;
  std::string format = "ndjson";
  std::string output;
  std::uint32_t skip_first = 0;
  std::string time_unit;
  std::vector<std::string> delegate_time_scales;
  bool allow_fingerprint_mismatch = false;
};

// What -o must not overwrite: every dump the --etdump values match (a
// folder's or glob's files, not only the values) and the ETRecord.
std::vector<std::string> input_files(const ExportOptions& options) {
  std::vector<std::string> inputs = dump_files_to_protect(options.fleet.etdumps);
  inputs.push_back(options.etrecord);
  return inputs;
}

Status check_export_usage(const ExportOptions& options) {
  GLASSBOX_RETURN_IF_ERROR(check_outputs_are_not_inputs(input_files(options), {options.output}));
  GLASSBOX_RETURN_IF_ERROR(inspector::parse_export_rows(options.rows).status());
  GLASSBOX_RETURN_IF_ERROR(inspector::parse_export_format(options.format).status());
  if (!options.time_unit.empty()) {
    GLASSBOX_RETURN_IF_ERROR(inspector::parse_time_unit(options.time_unit).status());
  }
  GLASSBOX_RETURN_IF_ERROR(parse_delegate_time_scales(options.delegate_time_scales).status());
  if (options.output == "-") {
    return Status(Error::kInvalidArgument,
                  "export writes a file (-o OUT), renamed into place when complete");
  }
  return Status();
}

Status export_rows(const ExportOptions& options, std::ostream& err) {
  GLASSBOX_ASSIGN_OR_RETURN(const inspector::ExportRows rows,
                            inspector::parse_export_rows(options.rows));
  GLASSBOX_ASSIGN_OR_RETURN(const inspector::ExportFormat format,
                            inspector::parse_export_format(options.format));
  inspector::InspectorOptions inspector_options;
  inspector_options.skip_first_runs = options.skip_first;
  inspector_options.allow_fingerprint_mismatch = options.allow_fingerprint_mismatch;
  if (!options.time_unit.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(inspector_options.time_unit,
                              inspector::parse_time_unit(options.time_unit));
  }
  GLASSBOX_ASSIGN_OR_RETURN(inspector_options.delegate_time_scales,
                            parse_delegate_time_scales(options.delegate_time_scales));
  GLASSBOX_ASSIGN_OR_RETURN(const etrecord::ETRecord record,
                            etrecord::ETRecord::load(options.etrecord));

  io::OutputFiles outputs;
  GLASSBOX_RETURN_IF_ERROR(outputs.refuse_inputs(input_files(options)));
  GLASSBOX_ASSIGN_OR_RETURN(const std::string temporary, outputs.add(options.output));
  std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
  auto write_failed = [&] {
    return Status(Error::kAccessFailed, options.output + ": cannot write the export");
  };
  if (!file) return write_failed();
  file << inspector::export_header(rows, format);

  const std::function<StatusOr<std::string>(const DumpSource&, const etdump::ETDumpFile&)> render =
      [&](const DumpSource& source, const etdump::ETDumpFile& dump) -> StatusOr<std::string> {
    GLASSBOX_ASSIGN_OR_RETURN(const inspector::Inspector insp,
                              inspector::Inspector::create(dump, &record, {}, inspector_options));
    std::string text;
    inspector::append_export_rows(insp, {source.path, source.tags}, rows, format, text);
    return text;
  };
  const std::function<Status(const DumpSource&, std::string&&)> append = [&](const DumpSource&,
                                                                             std::string&& text) {
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    return file ? Status() : write_failed();
  };
  GLASSBOX_ASSIGN_OR_RETURN(const FleetSummary summary,
                            read_fleet<std::string>(options.fleet, "export", err, render, append));
  file.close();
  if (!file) return write_failed();
  GLASSBOX_RETURN_IF_ERROR(outputs.commit());
  err << summary_line("export", summary);
  return Status();
}

}  // namespace

void add_export_commands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* command = app.add_subcommand(
      "export",
      "Rows for data engines (DuckDB, Spark, pandas): one per event, or per operator per "
      "execution, of many ETDumps of one program, with their tags (docs/export-schema.md)");
  command
      ->add_option("--etdump", options->fleet.etdumps,
                   "ETDump files, folders (their *.etdp) or quoted globs")
      ->required();
  command->add_option("--etrecord", options->etrecord, "the program's ETRecord")->required();
  command->add_option("--rows", options->rows, "events or ops")
      ->check(CLI::IsMember({"events", "ops"}))
      ->required();
  command->add_option("-o,--output", options->output, "the file to write")->required();
  command->add_option("--format", options->format, "ndjson or csv")
      ->check(CLI::IsMember({"ndjson", "csv"}))
      ->capture_default_str();
  add_fleet_options(*command, options->fleet, "");
  add_plugin_option(*command, /*for_decoding=*/true);
  command
      ->add_option("--skip-first", options->skip_first,
                   "ignore the first N executions of each dump (warm-up)")
      ->capture_default_str();
  command
      ->add_option("--time-unit", options->time_unit,
                   "what the dumps' raw timestamps are (overrides their tick ratio)")
      ->check(CLI::IsMember({"ns", "us", "ms", "ticks"}));
  add_delegate_time_scale_option(*command, options->delegate_time_scales);
  command->add_flag("--allow-fingerprint-mismatch", options->allow_fingerprint_mismatch,
                    "export dumps of another program than the ETRecord's anyway");
  command->callback([options, &context] {
    // Ctrl-C or SIGTERM stops after the dump in hand; the partial output
    // is removed as on any failure, and the exit code says why (130).
    InterruptFlag interrupt;
    options->fleet.stop = interrupt.get();
    run_command(
        context, [&] { return check_export_usage(*options); },
        [&] { return export_rows(*options, *context.err); });
    if (!context.status.ok() && interrupt.get()->load()) context.exit_code = kExitInterrupted;
  });
}

}  // namespace glassbox::cli
