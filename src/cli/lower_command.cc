// `glassbox lower [MODEL.onnx | --model demo] --backend demo|xnnpack|onednn|portable
//                 -o prog.gbx [--etrecord prog.etrecord] [--ids ...]
//                 [--reference-inputs X.npy... | --reference-seed S]
//                 [--input-shape NAME=D0xD1x...] [--perturb ID]
//                 [--float-model F.onnx] [--keep-float NAME...]`

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "backends/demo/aot/demo_model.h"
#include "frontends/onnx/importer.h"
#include "glassbox/aot/ops.h"
#include "glassbox/aot/quantization.h"
#include "glassbox/etrecord/quant_reference.h"
#include "glassbox/etrecord/reference_runner.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/io/output_files.h"
#include "glassbox/npy/npy.h"
#include "src/cli/commands.h"
#include "src/cli/plugin_option.h"

namespace glassbox::cli {
namespace {

struct LowerOptions {
  std::string model_file;  // an .onnx model; empty for the built-in model
  std::string model = "demo";
  std::string backend = "demo";
  std::string output;
  std::string etrecord;
  std::string ids = "generated";
  bool ids_given = false;
  // Numeric debugging: one .npy per model input, or a seed.
  std::vector<std::string> reference_inputs;
  std::optional<std::uint32_t> reference_seed;
  // A deliberate fault ("" = none): the delegate debug identifier of the
  // operator(s) to perturb, on any backend.
  std::string perturb;
  // --compile-spec KEY=VALUE: backend-specific compile specs.
  std::vector<std::string> compile_specs;
  // --input-shape NAME=D0xD1x...: static shapes for the ONNX model's inputs.
  std::vector<std::string> input_shapes;
  // Int8 models: the float twin for the float reference, and the ops to
  // leave in float (names or module paths).
  std::string float_model;
  std::vector<std::string> keep_float;
};

// "input=1x3x224x224" -> {"input", {1, 3, 224, 224}}.
Status parse_input_shape(const std::string& text,
                         std::map<std::string, std::vector<std::int64_t>, std::less<>>* shapes) {
  const std::size_t eq = text.find('=');
  const Status bad(
      Error::kInvalidArgument,
      "--input-shape '" + text + "': expected NAME=D0xD1x... (e.g. input=1x3x224x224)");
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) return bad;
  std::vector<std::int64_t> dims;
  std::size_t start = eq + 1;
  for (;;) {
    const std::size_t x = text.find('x', start);
    const std::string part = text.substr(start, x == std::string::npos ? x : x - start);
    if (part.empty() || part.size() > 12 ||
        part.find_first_not_of("0123456789") != std::string::npos) {
      return bad;
    }
    dims.push_back(std::stoll(part));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (!shapes->emplace(text.substr(0, eq), std::move(dims)).second) {
    return Status(Error::kInvalidArgument,
                  "--input-shape names '" + text.substr(0, eq) + "' twice");
  }
  return Status();
}

StatusOr<std::vector<etrecord::ReferenceTensor>> reference_inputs(const LowerOptions& options,
                                                                  const aot::Graph& model) {
  if (options.reference_seed.has_value()) {
    return etrecord::seeded_reference_inputs(model, *options.reference_seed);
  }
  std::vector<etrecord::ReferenceTensor> inputs;
  for (const std::string& path : options.reference_inputs) {
    GLASSBOX_ASSIGN_OR_RETURN(npy::Array array, npy::read_file(path));
    inputs.push_back({std::move(array.shape), std::move(array.data)});
  }
  return inputs;
}

// The command line alone: a failure here is a usage error (exit code 2).
Status check_lower_usage(const LowerOptions& options) {
  std::vector<std::string> inputs = options.reference_inputs;
  inputs.push_back(options.model_file);
  if (!options.float_model.empty()) inputs.push_back(options.float_model);
  GLASSBOX_RETURN_IF_ERROR(
      check_outputs_are_not_inputs(inputs, {options.output, options.etrecord}));
  if (options.backend == "portable") {
    if (options.ids_given || !options.perturb.empty() || !options.compile_specs.empty()) {
      return Status(Error::kInvalidArgument,
                    "--ids, --perturb and --compile-spec apply to a delegate backend, not to "
                    "--backend portable");
    }
  }
  for (const std::string& spec : options.compile_specs) {
    const std::size_t equals = spec.find('=');
    if (equals == std::string::npos || equals == 0) {
      return Status(Error::kInvalidArgument,
                    "--compile-spec " + spec + ": expected KEY=VALUE (e.g. trace=deferred)");
    }
  }
  if (options.backend != "portable" && backends::find_backend_plugin(options.backend) == nullptr) {
    return Status(
        Error::kInvalidArgument,
        "--backend " + options.backend + ": no such backend (built in, or loaded with --plugin)");
  }
  if (options.model_file.empty() && !options.input_shapes.empty()) {
    return Status(Error::kInvalidArgument, "--input-shape applies to an ONNX model only");
  }
  std::map<std::string, std::vector<std::int64_t>, std::less<>> shapes;
  for (const std::string& text : options.input_shapes) {
    GLASSBOX_RETURN_IF_ERROR(parse_input_shape(text, &shapes));
  }
  const bool with_reference =
      options.reference_seed.has_value() || !options.reference_inputs.empty();
  if (with_reference && options.etrecord.empty()) {
    return Status(Error::kInvalidArgument,
                  "--reference-inputs and --reference-seed are stored in the ETRecord: give "
                  "--etrecord too");
  }
  if (!options.float_model.empty() && !with_reference) {
    return Status(Error::kInvalidArgument,
                  "--float-model is the float reference of numeric debugging: give "
                  "--reference-inputs or --reference-seed (and --etrecord) too");
  }
  if ((!options.float_model.empty() || !options.keep_float.empty()) && options.model_file.empty()) {
    return Status(Error::kInvalidArgument,
                  "--float-model and --keep-float apply to an ONNX int8 model only");
  }
  return Status();
}

// Whether `node` is what `name` names: the node itself, or an op inside the
// module path `name` (e.g. "layer1.0" or "/layer1/layer1.0/conv1/Conv").
bool names_node(const aot::Node& node, const std::string& name) {
  if (node.name == name) return true;
  for (const aot::ModuleFrame& frame : node.module_hierarchy) {
    if (frame.path == name) return true;
  }
  return false;
}

// --keep-float: the model without the output quantization of the named ops
// (their quantize/dequantize pairs), so they compute and pass on float.
StatusOr<aot::Graph> keep_in_float(const aot::Graph& model, const std::vector<std::string>& names) {
  std::set<DebugHandle> kept;
  for (const std::string& name : names) {
    std::size_t found = 0;
    for (const aot::Node& node : model.nodes) {
      if (aot::is_quantization_op(node.op) || !names_node(node, name)) continue;
      kept.insert(node.debug_handle);
      ++found;
    }
    if (found == 0) {
      return Status(Error::kInvalidArgument,
                    "--keep-float '" + name +
                        "' names no operator of the model (give an "
                        "operator's name or a module path, as `inspect --view quant` shows them)");
    }
  }
  return aot::without_activation_quantization(
      model, [&](const aot::Node& q) { return kept.contains(q.debug_handle); });
}

StatusOr<exporter::Recipe> recipe_for(const LowerOptions& options) {
  exporter::Recipe recipe;
  recipe.generate_etrecord = !options.etrecord.empty();
  const backends::BackendPlugin* plugin = backends::find_backend_plugin(options.backend);
  if (plugin == nullptr) return recipe;  // portable: no delegation
  GLASSBOX_RETURN_IF_ERROR(backends::add_to_recipe(
      *plugin, {.identifiers = options.ids, .perturb = options.perturb}, &recipe));
  // The backend's own specs (check_lower_usage checked the form).
  for (const std::string& spec : options.compile_specs) {
    const std::size_t equals = spec.find('=');
    recipe.compile_specs.push_back(
        aot::CompileSpec::from_string(spec.substr(0, equals), spec.substr(equals + 1)));
  }
  return recipe;
}

// "the delegate call(s) at instruction(s) N, M" that get the fault asked for
// by `--perturb text`; the exporter refuses an identifier no delegate has.
StatusOr<std::string> perturbed_instruction(const exporter::ExecutorchProgramManager& program,
                                            const std::string& text) {
  StatusOr<std::vector<InstructionId>> calls =
      exporter::delegate_calls_with_identifier(program, text);
  if (!calls.ok()) return calls.status().with_context("--perturb " + text);
  std::string instructions;
  for (InstructionId instruction : *calls) {
    instructions += (instructions.empty() ? "" : ", ") + std::to_string(instruction.value);
  }
  return "the delegate call(s) at instruction(s) " + instructions;
}

// "partition:    N ops delegated in D delegates; left on portable:" and
// one line per op type left ("matmul 24 (activation x activation matmul)"),
// most frequent first; several reasons for one op type are listed with
// their counts.
std::string partition_summary(const std::vector<std::string>& ops,
                              const std::vector<std::string>& reasons, std::size_t delegates) {
  std::map<std::string, std::map<std::string, std::size_t>> left;  // op -> reason -> count
  std::size_t delegated = 0;
  for (std::size_t n = 0; n < ops.size(); ++n) {
    if (reasons[n].empty()) {
      ++delegated;
    } else {
      ++left[ops[n]][reasons[n]];
    }
  }
  struct Row {
    std::size_t count = 0;
    std::string text;
  };
  std::vector<Row> rows;
  for (const auto& [op, by_reason] : left) {
    std::vector<std::pair<std::size_t, std::string>> why;
    Row row;
    for (const auto& [reason, count] : by_reason) {
      why.emplace_back(count, reason);
      row.count += count;
    }
    std::stable_sort(why.begin(), why.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    row.text = op + " " + std::to_string(row.count) + " (";
    for (std::size_t i = 0; i < why.size(); ++i) {
      row.text += (i == 0 ? "" : "; ") + why[i].second;
      if (why.size() > 1) row.text += " " + std::to_string(why[i].first);
    }
    rows.push_back({row.count, row.text + ")"});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.count > b.count; });
  std::string text = "partition:    " + std::to_string(delegated) + " ops delegated in " +
                     std::to_string(delegates) + (delegates == 1 ? " delegate" : " delegates") +
                     "; left on portable:" + (rows.empty() ? " none\n" : "\n");
  for (const Row& row : rows) text += "              " + row.text + "\n";
  return text;
}

std::string join_paths(const std::vector<std::string>& paths) {
  std::string text;
  for (const std::string& p : paths) text += (text.empty() ? "" : ", ") + p;
  return text;
}

// Source operators of an int8 model: those whose output is quantized (a
// quantize_linear shares their handle) and the other compute operators.
std::pair<std::size_t, std::size_t> count_quantized_sources(const aot::Graph& model) {
  std::set<DebugHandle> quantized, compute;
  for (const aot::Node& node : model.nodes) {
    if (node.op == aot::op::kQuantizeLinear) quantized.insert(node.debug_handle);
    if (!aot::is_quantization_op(node.op)) compute.insert(node.debug_handle);
  }
  std::size_t int8 = 0;
  for (DebugHandle h : compute) int8 += quantized.contains(h);
  return {int8, compute.size() - int8};
}

// Writes through `outputs`: under temporary names, renamed into place
// once all succeeded.
Status lower(const LowerOptions& options, io::OutputFiles& outputs, std::ostream& out) {
  std::vector<std::string> input_files = options.reference_inputs;
  input_files.push_back(options.model_file);
  if (!options.float_model.empty()) input_files.push_back(options.float_model);
  GLASSBOX_RETURN_IF_ERROR(outputs.refuse_inputs(input_files));
  GLASSBOX_ASSIGN_OR_RETURN(const std::string program_file, outputs.add(options.output));
  std::string etrecord_file;
  if (!options.etrecord.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(etrecord_file, outputs.add(options.etrecord));
  }
  // --model is checked by CLI11; "demo" is the only model built in today.
  aot::Graph model;
  std::optional<aot::Graph> float_model;
  frontends::onnx::ImportStats import_stats;
  if (!options.model_file.empty()) {
    frontends::onnx::ImportOptions import_options;
    for (const std::string& text : options.input_shapes) {
      GLASSBOX_RETURN_IF_ERROR(parse_input_shape(text, &import_options.input_shapes));
    }
    import_options.stats = &import_stats;
    GLASSBOX_ASSIGN_OR_RETURN(model,
                              frontends::onnx::import_onnx(options.model_file, import_options));
    if (!options.keep_float.empty()) {
      if (!etrecord::is_quantized_graph(model)) {
        return Status(Error::kInvalidArgument,
                      options.model_file +
                          ": --keep-float needs an int8 (QDQ) model; this one "
                          "has no QuantizeLinear");
      }
      GLASSBOX_ASSIGN_OR_RETURN(model, keep_in_float(model, options.keep_float));
    }
    if (!options.float_model.empty()) {
      frontends::onnx::ImportOptions twin_options = import_options;
      twin_options.stats = nullptr;
      GLASSBOX_ASSIGN_OR_RETURN(float_model,
                                frontends::onnx::import_onnx(options.float_model, twin_options));
    }
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(model, backends::demo::build_conv_relu_tan_model());
  }
  std::set<DebugHandle> source_handles;
  for (const aot::Node& node : model.nodes) source_handles.insert(node.debug_handle);
  const std::pair<std::size_t, std::size_t> quantized_sources = count_quantized_sources(model);
  const std::size_t num_nodes = model.nodes.size();
  const bool with_reference =
      options.reference_seed.has_value() || !options.reference_inputs.empty();
  // The reference runs the graph with its weights; the ETRecord's copy has
  // none, so keep the model as it is before export consumes it.
  std::optional<aot::Graph> edge;
  if (with_reference) edge = model;
  // The partition report, on the graph the partitioner will see.
  std::vector<std::string> node_ops, partition_reasons;
  const backends::BackendPlugin* plugin = backends::find_backend_plugin(options.backend);
  const bool with_report = plugin != nullptr && plugin->partition_report != nullptr;
  if (with_report) {
    GLASSBOX_ASSIGN_OR_RETURN(partition_reasons, plugin->partition_report(model));
    for (const aot::Node& node : model.nodes) node_ops.push_back(node.op);
  }
  // Source operators (compute ops' handles) the backend runs in int8
  // operators, and the others.
  std::size_t int8_ops = 0, float_ops = 0;
  if (quantized_sources.first > 0 && plugin != nullptr && plugin->int8_report != nullptr) {
    GLASSBOX_ASSIGN_OR_RETURN(const std::vector<bool> int8, plugin->int8_report(model));
    std::set<DebugHandle> compute, in_int8;
    for (std::size_t n = 0; n < model.nodes.size(); ++n) {
      if (aot::is_quantization_op(model.nodes[n].op)) continue;
      compute.insert(model.nodes[n].debug_handle);
      if (int8[n]) in_int8.insert(model.nodes[n].debug_handle);
    }
    int8_ops = in_int8.size();
    float_ops = compute.size() - int8_ops;
  }

  GLASSBOX_ASSIGN_OR_RETURN(exporter::Recipe recipe, recipe_for(options));
  GLASSBOX_ASSIGN_OR_RETURN(exporter::ExecutorchProgramManager program,
                            exporter::export_model(std::move(model), recipe));
  // Checked before anything is written: a fault that hits nothing is an error.
  std::string perturbed_in;
  if (!options.perturb.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(perturbed_in, perturbed_instruction(program, options.perturb));
  }
  GLASSBOX_RETURN_IF_ERROR(program.save(program_file));
  std::size_t reference_ops = 0, quantized_ops = 0;
  if (recipe.generate_etrecord) {
    GLASSBOX_ASSIGN_OR_RETURN(etrecord::ETRecord record, program.get_etrecord());
    if (edge.has_value()) {
      GLASSBOX_ASSIGN_OR_RETURN(std::vector<etrecord::ReferenceTensor> inputs,
                                reference_inputs(options, *edge));
      Status attached = etrecord::attach_reference(*edge, std::move(inputs), &record);
      // An input that does not fit the model is the input files' fault: name them.
      if (!attached.ok() && !options.reference_inputs.empty() &&
          attached.message().starts_with("reference input")) {
        return attached.with_context(join_paths(options.reference_inputs));
      }
      GLASSBOX_RETURN_IF_ERROR(attached);
      reference_ops = record.reference_op_outputs.size();
      if (etrecord::is_quantized_graph(*edge)) {
        Status quant = etrecord::attach_quantization_reference(
            *edge, float_model ? &*float_model : nullptr, &record);
        if (!quant.ok() && float_model) return quant.with_context(options.float_model);
        GLASSBOX_RETURN_IF_ERROR(quant);
        quantized_ops = record.isolated_op_outputs.size();
      } else if (float_model) {
        return Status(Error::kInvalidArgument,
                      options.model_file +
                          ": --float-model needs an int8 (QDQ) model; this one "
                          "has no QuantizeLinear");
      }
    }
    GLASSBOX_RETURN_IF_ERROR(record.save(etrecord_file));
  }

  const std::string method(aot::kForwardMethod);
  const std::size_t instructions = program.instruction_id_to_num_outs_map().at(method).size();
  const std::size_t delegates = program.delegate_map().at(method).size();

  std::set<DebugHandle> covered;
  for (const auto& [id, handles] : program.debug_handle_map().at(method)) {
    covered.insert(handles.begin(), handles.end());
  }
  out << "model:        " << (options.model_file.empty() ? options.model : options.model_file)
      << " (" << num_nodes << " operators)\n";
  if (!options.model_file.empty()) {
    out << "folded:       " << import_stats.folded_nodes
        << " nodes computed at import on the portable kernels (their inputs were constants)\n";
  }
  out << "backend:      " << options.backend;
  if (options.backend != "portable") out << " (identifiers: " << options.ids << ")";
  out << "\nprogram:      " << options.output << " (" << program.buffer().size()
      << " bytes, fingerprint " << program.fingerprint() << ")\n"
      << "instructions: " << instructions << " (" << instructions - delegates << " kernel calls, "
      << delegates << " delegate calls)\n"
      << "delegates:    " << delegates << "\n"
      << "handles:      " << covered.size() << " of " << source_handles.size()
      << " source operators covered by the debug handle map\n";
  if (with_report) out << partition_summary(node_ops, partition_reasons, delegates);
  if (quantized_sources.first > 0) {
    out << "int8:         " << quantized_sources.first << " quantized operators (output int8), "
        << quantized_sources.second << " float\n";
  }
  if (int8_ops + float_ops > 0) {
    out << "int8 ops:     " << int8_ops << " on " << options.backend << ", " << float_ops
        << " float\n";
  }
  if (recipe.generate_etrecord) out << "etrecord:     " << options.etrecord << "\n";
  if (edge.has_value()) {
    out << "reference:    "
        << (options.reference_seed ? "seed " + std::to_string(*options.reference_seed)
                                   : join_paths(options.reference_inputs))
        << " (outputs of " << reference_ops << " source operators, portable kernels)\n";
    if (quantized_ops > 0) {
      out << "quant ref:    " << quantized_ops << " quantized operators: float reference ("
          << (options.float_model.empty() ? "the graph with activations unquantized"
                                          : options.float_model)
          << "), simulated int8 and isolated outputs\n";
    }
  }
  if (!options.keep_float.empty()) {
    out << "kept float:   " << join_paths(options.keep_float)
        << " (their outputs are not quantized)\n";
  }
  if (!options.perturb.empty()) {
    out << "fault:        operator '" << options.perturb << "' of " << perturbed_in
        << " adds 0.05 to its output (deliberately wrong, for numeric debugging)\n";
  }
  out.flush();
  if (!out) return Status(Error::kAccessFailed, "cannot write the output");
  return outputs.commit();
}

}  // namespace

void add_lower_commands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<LowerOptions>();
  CLI::App* command = app.add_subcommand(
      "lower",
      "Lower an ONNX model or a built-in model with a backend and emit a "
      "program (.gbx) and, with --etrecord, its ETRecord. With --backend xnnpack or onednn "
      "it also prints the partition: how many ops the delegate takes and, per op type "
      "left on the portable kernels, how many and why");
  command->add_option("model_file", options->model_file,
                      "an ONNX model (.onnx); without it, --model picks a built-in one");
  command->add_option("--model", options->model, "the built-in model (when no MODEL.onnx)")
      ->check(CLI::IsMember({"demo"}))
      ->capture_default_str();
  std::string backend_help = "portable (no delegation)";
  std::vector<std::string> backend_names = {"portable"};
  for (const backends::BackendPlugin* plugin : backends::backend_plugins()) {
    backend_help += ", " + std::string(plugin->name) + " (" + std::string(plugin->summary) + ")";
    backend_names.emplace_back(plugin->name);
  }
  command->add_option("--backend", options->backend, "the backend: " + backend_help)
      ->check(CLI::IsMember(backend_names))
      ->capture_default_str();
  command->add_option("-o,--output", options->output, "the program file to write")->required();
  add_plugin_option(*command);
  command->add_option("--etrecord", options->etrecord, "also write the ETRecord here");
  command->add_option("--ids", options->ids, "how the delegate names its debug identifiers")
      ->check(CLI::IsMember({"generated", "int", "string"}))
      ->capture_default_str();
  auto* inputs = command->add_option(
      "--reference-inputs", options->reference_inputs,
      "numeric debugging: one .npy per model input; the ETRecord stores them and every source "
      "operator's output on them (portable kernels)");
  command
      ->add_option("--reference-seed", options->reference_seed,
                   "numeric debugging: as --reference-inputs, with inputs uniform in [-1, 1) "
                   "from this seed (what `glassbox run --seed S` feeds)")
      ->excludes(inputs);
  command
      ->add_option("--input-shape", options->input_shapes,
                   "static shape of an ONNX input whose shape is symbolic or unknown, as "
                   "NAME=D0xD1x... (e.g. input=1x3x224x224); repeat for several inputs")
      ->type_name("NAME=SHAPE");
  command->add_option(
      "--float-model", options->float_model,
      "int8 models: the float model it was quantized from (.onnx), the float reference of "
      "`inspect --view quant`; it must align with the int8 model operator by operator (else "
      "refused, naming the first that differs). Without it the reference is the int8 model "
      "with its activations' quantization removed");
  command
      ->add_option("--keep-float", options->keep_float,
                   "int8 models: leave these ops in float (an op's name or a module path; "
                   "repeatable): their outputs are not quantized, to try a fix that "
                   "`inspect --view quant` suggests")
      ->type_name("NAME");
  command
      ->add_option("--compile-spec", options->compile_specs,
                   "a compile spec for the backend, as KEY=VALUE (repeatable), passed to its "
                   "preprocess and stored with its delegate; what keys mean is the backend's "
                   "(example_npu: trace=deferred logs one raw trace an execution, see "
                   "docs/backend-authors.md)")
      ->type_name("KEY=VALUE");
  command->add_option(
      "--perturb", options->perturb,
      "a deliberate fault for testing numeric debugging: the delegate adds 0.05 to every output "
      "of the operator(s) with this delegate debug identifier (an int, or a string with --ids "
      "string; `etrecord show` lists them; every delegate with it gets the fault). An identifier "
      "no operator has is refused before anything is written");
  command->callback([options, command, &context] {
    options->ids_given = command->count("--ids") > 0;
    run_command(
        context, [&] { return check_lower_usage(*options); },
        [&] {
          return with_output_files(
              [&](io::OutputFiles& outputs) { return lower(*options, outputs, *context.out); });
        });
  });
}

}  // namespace glassbox::cli
