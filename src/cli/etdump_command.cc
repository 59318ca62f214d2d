// `glassbox etdump show FILE [--format text|json] [--debug-data FILE
// [--values summary|all]]`.

#include <memory>
#include <string>

#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etdump/etdump_render.h"
#include "glassbox/io/file.h"
#include "src/cli/commands.h"

namespace glassbox::cli {
namespace {

using etdump::DebugData;

struct ShowOptions {
  std::string file;
  std::string format = "text";
  std::string debug_data;
  std::string values = "summary";
};

Status show(const ShowOptions& options, std::ostream& out) {
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile file, etdump::load_etdump_file(options.file));
  std::vector<std::uint8_t> debug_bytes;
  DebugData debug_data;
  const DebugData* debug = nullptr;
  if (!options.debug_data.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(debug_bytes, io::read_file(options.debug_data));
    debug_data = DebugData{options.debug_data, debug_bytes, options.file};
    debug = &debug_data;
  }
  const etdump::TensorValues values =
      options.values == "all" ? etdump::TensorValues::kAll : etdump::TensorValues::kSummary;
  if (options.format == "json") {
    // Streamed: with every value, the whole document would take many times
    // the debug data.
    GLASSBOX_RETURN_IF_ERROR(etdump::write_etdump_json(file, debug, out, values));
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(std::string text, etdump_to_text(file, debug, values));
    out << text;
  }
  out.flush();
  if (!out) return Status(Error::kAccessFailed, "cannot write the output");
  return Status();
}

}  // namespace

void add_etdump_commands(CLI::App& app, CommandContext& context) {
  CLI::App* etdump = app.add_subcommand("etdump", "Read ETDump files");
  etdump->require_subcommand(1);

  auto options = std::make_shared<ShowOptions>();
  CLI::App* show_command =
      etdump->add_subcommand("show",
                             "Print every run and event of an ETDump (ours or ExecuTorch's); JSON "
                             "keys are described in docs/etdump-json.md");
  show_command->add_option("file", options->file, "the ETDump file (.etdp)")->required();
  show_command->add_option("--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  show_command->add_option(
      "--debug-data", options->debug_data,
      "the debug-data file that tensor offsets point into; adds tensor values");
  show_command
      ->add_option("--values", options->values,
                   "with --debug-data: summary (count, min, max, mean and the first 8 values of "
                   "each tensor: output proportional to the dump) or all (every value: output "
                   "grows with each tensor's size times the events pointing at it)")
      ->check(CLI::IsMember({"summary", "all"}))
      ->capture_default_str();
  show_command->callback([options, &context] { context.status = show(*options, *context.out); });
}

}  // namespace glassbox::cli
