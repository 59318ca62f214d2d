// `glassbox compare A.etdp A.etrecord B.etdp B.etrecord [--format
//   table|csv|tsv|json] [--skip-first N] [--plugin PATH] [-o FILE]`: two runs of one source
// model through different programs, joined per source op
// (inspector/compare_runs.h does the work).

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "glassbox/inspector/compare_runs.h"
#include "src/cli/commands.h"
#include "src/cli/plugin_option.h"

namespace glassbox::cli {
namespace {

struct CompareOptions {
  std::vector<std::string> files;  ///< A.etdp A.etrecord B.etdp B.etrecord
  std::string format = "table";
  std::uint32_t skip_first = 0;
  std::string output;
};

Status check_compare_usage(const CompareOptions& options) {
  if (options.files.size() != 4) {
    return Status(Error::kInvalidArgument,
                  "compare takes four files: A.etdp A.etrecord B.etdp B.etrecord (got " +
                      std::to_string(options.files.size()) + ")");
  }
  if (options.output != "-") {
    GLASSBOX_RETURN_IF_ERROR(check_outputs_are_not_inputs(options.files, {options.output}));
  }
  return inspector::parse_format(options.format).status();
}

Status compare(const CompareOptions& options, std::ostream& out) {
  GLASSBOX_ASSIGN_OR_RETURN(inspector::Format format, inspector::parse_format(options.format));
  GLASSBOX_ASSIGN_OR_RETURN(
      inspector::RunComparison comparison,
      inspector::compare_run_files({options.files[0], options.files[1]},
                                   {options.files[2], options.files[3]},
                                   {options.skip_first, backends::raw_trace_decoders()}));
  GLASSBOX_ASSIGN_OR_RETURN(std::string text, inspector::render_run_comparison(comparison, format));
  return write_text_output(text, options.output, options.files, out);
}

}  // namespace

void add_compare_commands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* command = app.add_subcommand(
      "compare",
      "Compare two runs of one source model through different programs (XNNPACK vs oneDNN, "
      "int8 vs its float twin, two versions of a delegate), per source op");
  command->footer(
      "Each ETDump comes with the ETRecord `glassbox lower` wrote for its program. Ops are\n"
      "joined by name when both ETRecords' graphs name their operators alike, else by\n"
      "structure (the same operators in the same order once quantize/dequantize nodes are\n"
      "set aside: an int8 model and its float twin). Ops one program times as one unit (a\n"
      "fused conv+relu) are one row. Output: ops both runs have, largest |B - A| first, with\n"
      "B/A (< 1: B is faster); the ops only one run has; and rollups by module and op type.\n"
      "Times are means per execution. Fields: docs/inspector.md, \"Comparing two programs\".\n"
      "Exit codes: 0 done, 1 bad or mismatched files, 2 usage.");
  command
      ->add_option("files", options->files,
                   "A.etdp A.etrecord B.etdp B.etrecord: run A's ETDump and ETRecord, then B's")
      ->required()
      ->expected(4);
  command->add_option("--format", options->format, "table, csv, tsv or json")
      ->check(CLI::IsMember({"table", "csv", "tsv", "json"}))
      ->capture_default_str();
  command
      ->add_option("--skip-first", options->skip_first,
                   "ignore the first N executions of each dump (warm-up)")
      ->capture_default_str();
  command->add_option("-o,--output", options->output, "write here instead of stdout");
  add_plugin_option(*command, /*for_decoding=*/true);
  command->callback([options, &context] {
    run_command(
        context, [&] { return check_compare_usage(*options); },
        [&] { return compare(*options, *context.out); });
  });
}

}  // namespace glassbox::cli
