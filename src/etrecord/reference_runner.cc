// The reference run: emit portable-only, run once at intermediate-output
// debug level, read every logged output back from the ETDump and its data
// sink (see reference_runner.h for why this path rather than an evaluator).

#include "glassbox/etrecord/reference_runner.h"

#include <random>
#include <string>

#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::etrecord {
namespace {

// Each sink write may be padded up to this alignment.
constexpr std::size_t kSinkAlignment = 64;

std::string shape_text(std::span<const std::int64_t> shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

Status check_inputs(const aot::Graph& graph, std::span<const ReferenceTensor> inputs) {
  if (graph.inputs.empty()) {
    return Status(Error::kInvalidArgument,
                  "reference run: the model has no inputs to run it on (lower it without "
                  "--reference-seed or --reference-inputs)");
  }
  if (inputs.size() != graph.inputs.size()) {
    return Status(Error::kInvalidArgument, "reference inputs: the model takes " +
                                               std::to_string(graph.inputs.size()) + " inputs, " +
                                               std::to_string(inputs.size()) + " were given");
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const aot::Value* value = graph.find_value(graph.inputs[i]);
    if (value == nullptr)
      return Status(Error::kInvalidArgument, "reference inputs: bad graph input");
    if (value->dtype != ScalarType::kFloat) {
      return Status(Error::kInvalidArgument, "reference input " + std::to_string(i) + " ('" +
                                                 value->name +
                                                 "'): only float32 inputs are supported");
    }
    if (value->numel() == 0) {
      return Status(Error::kInvalidArgument,
                    "reference input " + std::to_string(i) + " ('" + value->name + "'): shape " +
                        shape_text(value->shape) +
                        " has a zero-size dim: no values to run the reference on");
    }
    if (inputs[i].sizes != value->shape) {
      return Status(Error::kInvalidArgument,
                    "reference input " + std::to_string(i) + " ('" + value->name + "'): shape " +
                        shape_text(inputs[i].sizes) + " does not match the model's " +
                        shape_text(value->shape));
    }
    if (static_cast<std::int64_t>(inputs[i].data.size()) != value->numel()) {
      return Status(Error::kInvalidArgument,
                    "reference input " + std::to_string(i) + ": data does not match its shape");
    }
  }
  for (const aot::Value& value : graph.values) {
    if (value.kind == aot::ValueKind::kConstant && value.data.empty() && value.int_data.empty() &&
        value.numel() > 0) {
      return Status(Error::kInvalidArgument,
                    "reference run: constant '" + value.name +
                        "' has no data (an ETRecord's stored graph drops it; pass the graph "
                        "before make_etrecord)");
    }
  }
  return Status();
}

// Every node output is logged once, program outputs twice (as an
// instruction output and as a program output).
std::size_t sink_bytes(const aot::Graph& graph) {
  std::size_t total = kSinkAlignment;
  auto add = [&](const aot::Value& v) {
    total += static_cast<std::size_t>(v.numel()) * element_size(v.dtype) + kSinkAlignment;
  };
  for (const aot::Value& v : graph.values) {
    if (v.kind == aot::ValueKind::kNodeOutput) add(v);
  }
  for (aot::ValueId id : graph.outputs) {
    if (const aot::Value* v = graph.find_value(id)) add(*v);
  }
  return total;
}

StatusOr<ReferenceTensor> read_tensor(const etdump::Tensor& tensor,
                                      std::span<const std::uint8_t> data) {
  ReferenceTensor out;
  out.sizes = tensor.sizes;
  if (tensor.offset < 0) {
    std::int64_t numel = 1;
    for (std::int64_t s : tensor.sizes) numel *= s;
    if (numel == 0) return out;  // empty tensors carry no data by design
    return Status(Error::kInternal, "reference run: a logged tensor has no data");
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<double> values, etdump::read_tensor_values(tensor, data));
  out.data.assign(values.begin(), values.end());
  return out;
}

std::vector<const etdump::Tensor*> tensors_of(const etdump::Value& value) {
  std::vector<const etdump::Tensor*> out;
  if (value.tensor.has_value()) out.push_back(&*value.tensor);
  if (value.tensor_list.has_value()) {
    for (const etdump::Tensor& t : *value.tensor_list) out.push_back(&t);
  }
  return out;
}

}  // namespace

StatusOr<ReferenceRun> run_reference(const aot::Graph& edge_graph,
                                     std::span<const ReferenceTensor> inputs) {
  GLASSBOX_RETURN_IF_ERROR(check_inputs(edge_graph, inputs));
  GLASSBOX_ASSIGN_OR_RETURN(exporter::ExecutorchProgramManager program,
                            exporter::export_model(edge_graph, exporter::Recipe{}));
  const aot::InstructionDebugHandles& handles =
      program.debug_handle_map().at(std::string(aot::kForwardMethod));

  runtime::Diagnostics diag;
  Result<runtime::Program> loaded = runtime::Program::load(program.buffer(), &diag);
  if (!loaded.ok()) {
    return Status(Error::kInternal,
                  std::string("reference run: cannot load the portable program: ") + diag.message);
  }
  std::vector<std::uint8_t> storage(sink_bytes(edge_graph));
  Result<etdump::BufferDataSink> sink = etdump::BufferDataSink::create(storage, kSinkAlignment);
  if (!sink.ok()) return Status(Error::kInternal, "reference run: cannot create the data sink");
  etdump::ETDumpGen gen;
  gen.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  gen.set_profiling_level(runtime::ProfilingLevel::kMethodOnly);
  gen.set_data_sink(&*sink);

  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*loaded, "forward", &memory, &temp, &gen, &diag);
  if (!method.ok()) {
    return Status(Error::kInternal,
                  std::string("reference run: cannot load the method: ") + diag.message);
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (method->set_input(i, inputs[i].data.data(), inputs[i].data.size() * sizeof(float)) !=
        Error::kOk) {
      return Status(Error::kInternal, "reference run: cannot set input " + std::to_string(i));
    }
  }
  if (method->execute(&diag) != Error::kOk) {
    return Status(Error::kInternal, std::string("reference run failed: ") + diag.message);
  }
  if (gen.tensor_data_dropped() > 0 || gen.dropped_events() > 0) {
    return Status(Error::kInternal, "reference run: outputs were dropped while capturing");
  }
  Result<Span<const std::uint8_t>> bytes = gen.get_etdump_data();
  if (!bytes.ok()) return Status(bytes.error_info());
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump,
                            etdump::parse_etdump(*bytes, "<reference run>"));

  ReferenceRun run;
  std::map<DebugHandle, InstructionId> last_writer;
  for (const etdump::RunData& block : dump.runs) {
    if (block.name != "Execute") continue;
    for (const etdump::Event& event : block.events) {
      const etdump::DebugEvent* d = event.debug();
      if (d == nullptr) continue;
      for (const etdump::Tensor* t : tensors_of(d->value)) {
        GLASSBOX_ASSIGN_OR_RETURN(ReferenceTensor tensor, read_tensor(*t, sink->data()));
        if (d->value.output.value_or(false)) {
          run.outputs.push_back(std::move(tensor));
          continue;
        }
        auto it = handles.find(d->instruction_id);
        // Portable-only: one node, so one handle, per instruction. A node
        // without a handle has nothing to be compared under.
        if (it == handles.end() || it->second.size() != 1) continue;
        // Nodes decomposed from one source op share its handle; the last of
        // them (in execution order) computes the source op's output.
        const DebugHandle handle = it->second.front();
        auto [writer, first] = last_writer.try_emplace(handle, d->instruction_id);
        std::vector<ReferenceTensor>& outputs = run.op_outputs[handle];
        if (!first && writer->second != d->instruction_id) {
          writer->second = d->instruction_id;
          outputs.clear();
        }
        outputs.push_back(std::move(tensor));
      }
    }
  }
  return run;
}

StatusOr<std::vector<ReferenceTensor>> seeded_reference_inputs(const aot::Graph& graph,
                                                               std::uint32_t seed) {
  // Same generator, distribution and order as the runner (src/runner/program_runner.cc).
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  std::vector<ReferenceTensor> inputs;
  for (aot::ValueId id : graph.inputs) {
    const aot::Value* value = graph.find_value(id);
    if (value == nullptr || value->dtype != ScalarType::kFloat) {
      return Status(Error::kInvalidArgument,
                    "seeded reference inputs: only float32 inputs are supported");
    }
    ReferenceTensor tensor{value->shape,
                           std::vector<float>(static_cast<std::size_t>(value->numel()))};
    for (float& v : tensor.data) v = uniform(rng);
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

Status attach_reference(const aot::Graph& edge_graph, std::vector<ReferenceTensor> inputs,
                        ETRecord* record) {
  GLASSBOX_ASSIGN_OR_RETURN(ReferenceRun run, run_reference(edge_graph, inputs));
  ETRecord updated = *record;
  updated.reference_inputs = std::move(inputs);
  updated.reference_outputs = std::move(run.outputs);
  updated.reference_op_outputs = std::move(run.op_outputs);
  GLASSBOX_RETURN_IF_ERROR(updated.validate());
  *record = std::move(updated);
  return Status();
}

}  // namespace glassbox::etrecord
