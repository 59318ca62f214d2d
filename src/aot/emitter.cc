#include "glassbox/aot/emitter.h"

#include <cstring>
#include <unordered_map>

#include "glassbox/aot/memory_plan.h"
#include "program_generated.h"
#include "src/aot/emitter_internal.h"

namespace glassbox::aot {
namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

Status invalid(const std::string& message) {
  return Status(Error::kInvalidArgument, "emit: " + message);
}

// Builds one Program; every input is read in a fixed order, so the same
// graph always gives the same bytes.
class ProgramWriter {
 public:
  ProgramWriter(const Graph& graph, const MemoryPlan& plan) : graph_(graph), plan_(plan) {}

  StatusOr<std::vector<std::uint8_t>> write() {
    std::vector<Offset<gbx::Tensor>> values;
    for (std::size_t i = 0; i < graph_.values.size(); ++i) {
      index_[graph_.values[i].id.value] = static_cast<std::int32_t>(i);
    }
    for (const Value& value : graph_.values) {
      GLASSBOX_ASSIGN_OR_RETURN(Offset<gbx::Tensor> tensor, write_value(value));
      values.push_back(tensor);
    }
    std::vector<Offset<gbx::Instruction>> instructions;
    std::vector<Offset<gbx::BackendDelegate>> delegates;
    for (const Node& node : graph_.nodes) {
      instructions.push_back(write_instruction(node, &delegates));
    }
    const std::vector<std::int32_t> inputs = indices(graph_.inputs);
    const std::vector<std::int32_t> outputs = indices(graph_.outputs);
    const auto method = gbx::CreateMethodDirect(fbb_, std::string(kForwardMethod).c_str(), &values,
                                                &inputs, &outputs, &instructions, &delegates,
                                                static_cast<std::uint64_t>(plan_.arena_bytes));
    const std::vector<Offset<gbx::Method>> methods{method};
    // Zero bytes now, the digits later (see emitter.h).
    const std::string placeholder(kFingerprintLength, '\0');
    const auto fingerprint = fbb_.CreateString(placeholder.data(), placeholder.size());
    const auto program = gbx::CreateProgram(fbb_, kProgramVersion, fbb_.CreateVector(methods),
                                            fbb_.CreateVector(constants_), fingerprint);
    gbx::FinishProgramBuffer(fbb_, program);
    return std::vector<std::uint8_t>(fbb_.GetBufferPointer(),
                                     fbb_.GetBufferPointer() + fbb_.GetSize());
  }

 private:
  // A constant's elements in its own dtype, as the runtime reads them.
  static StatusOr<std::vector<std::uint8_t>> constant_bytes(const Value& value) {
    const bool is_float = value.dtype == ScalarType::kFloat;
    const std::size_t count = is_float ? value.data.size() : value.int_data.size();
    if (static_cast<std::int64_t>(count) != value.numel()) {
      return invalid("constant '" + value.name +
                     "' has no data recorded (was the graph loaded from JSON without "
                     "constant data?)");
    }
    std::vector<std::uint8_t> bytes(count * element_size(value.dtype));
    if (bytes.empty()) return bytes;
    if (is_float) {
      std::memcpy(bytes.data(), value.data.data(), bytes.size());
      return bytes;
    }
    for (std::size_t i = 0; i < count; ++i) {
      const std::int64_t v = value.int_data[i];
      switch (value.dtype) {
        case ScalarType::kLong: std::memcpy(&bytes[i * 8], &v, 8); break;
        case ScalarType::kInt: {
          const auto narrow = static_cast<std::int32_t>(v);
          std::memcpy(&bytes[i * 4], &narrow, 4);
          break;
        }
        case ScalarType::kBool: bytes[i] = v != 0 ? 1 : 0; break;
        case ScalarType::kChar:
          bytes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(v));
          break;
        case ScalarType::kByte: bytes[i] = static_cast<std::uint8_t>(v); break;
        default:
          return invalid("constant '" + value.name + "' has unsupported dtype " +
                         std::string(to_string(value.dtype)));
      }
    }
    return bytes;
  }

  StatusOr<Offset<gbx::Tensor>> write_value(const Value& value) {
    const std::vector<std::int64_t>& sizes = value.shape;
    const auto dtype = static_cast<executorch_flatbuffer::ScalarType>(value.dtype);
    if (value.kind != ValueKind::kConstant) {
      // A dynamic value's shape is its bound: what the plan reserved.
      return gbx::CreateTensorDirect(fbb_, value.name.c_str(), dtype, &sizes, -1,
                                     plan_.values.at(value.id).offset, value.dynamic);
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, constant_bytes(value));
    const auto constant_index = static_cast<std::int32_t>(constants_.size());
    constants_.push_back(gbx::CreateBufferDirect(fbb_, &bytes));
    return gbx::CreateTensorDirect(fbb_, value.name.c_str(), dtype, &sizes, constant_index, -1);
  }

  Offset<gbx::Instruction> write_instruction(const Node& node,
                                             std::vector<Offset<gbx::BackendDelegate>>* delegates) {
    const std::vector<std::int32_t> inputs = indices(node.inputs);
    const std::vector<std::int32_t> outputs = indices(node.outputs);
    if (node.is_delegate_call()) {
      const DelegateCall& call = *node.delegate;
      std::vector<Offset<gbx::CompileSpec>> specs;
      for (const CompileSpec& spec : call.compile_specs) {
        specs.push_back(gbx::CreateCompileSpecDirect(fbb_, spec.key.c_str(), &spec.value));
      }
      const auto delegate_index = static_cast<std::int32_t>(delegates->size());
      delegates->push_back(gbx::CreateBackendDelegateDirect(fbb_, call.backend.c_str(),
                                                            &call.processed_bytes, &specs));
      const auto args = gbx::CreateDelegateCallDirect(fbb_, delegate_index, &inputs, &outputs);
      return gbx::CreateInstructionDirect(fbb_, gbx::InstructionArgs::DelegateCall, args.Union(),
                                          node.debug_handle.value, node.name.c_str());
    }
    std::vector<Offset<gbx::Attribute>> attributes;
    for (const auto& [name, value] : node.attributes) {
      attributes.push_back(write_attribute(name, value));
    }
    const auto args =
        gbx::CreateKernelCallDirect(fbb_, node.op.c_str(), &inputs, &outputs, &attributes);
    return gbx::CreateInstructionDirect(fbb_, gbx::InstructionArgs::KernelCall, args.Union(),
                                        node.debug_handle.value, node.name.c_str());
  }

  Offset<gbx::Attribute> write_attribute(const std::string& name, const AttributeValue& value) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
      return gbx::CreateAttributeDirect(fbb_, name.c_str(), gbx::AttributeKind::Int, *i);
    }
    if (const auto* f = std::get_if<double>(&value)) {
      return gbx::CreateAttributeDirect(fbb_, name.c_str(), gbx::AttributeKind::Float, 0, *f);
    }
    if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&value)) {
      return gbx::CreateAttributeDirect(fbb_, name.c_str(), gbx::AttributeKind::Ints, 0, 0.0, ints);
    }
    return gbx::CreateAttributeDirect(fbb_, name.c_str(), gbx::AttributeKind::String, 0, 0.0,
                                      nullptr, std::get<std::string>(value).c_str());
  }

  std::vector<std::int32_t> indices(const std::vector<ValueId>& ids) const {
    std::vector<std::int32_t> out;
    for (ValueId id : ids) out.push_back(index_.at(id.value));
    return out;
  }

  const Graph& graph_;
  const MemoryPlan& plan_;
  FlatBufferBuilder fbb_;
  std::unordered_map<std::int32_t, std::int32_t> index_;  // value id -> index
  std::vector<Offset<gbx::Buffer>> constants_;
};

}  // namespace

StatusOr<EmitResult> emit(const Graph& lowered_graph, const EmitOptions& options) {
  // plan_memory verifies the graph, so the writer may trust it.
  GLASSBOX_ASSIGN_OR_RETURN(MemoryPlan plan, plan_memory(lowered_graph));
  GLASSBOX_ASSIGN_OR_RETURN(internal::MethodMaps maps,
                            internal::build_method_maps(lowered_graph, options.edge_graph));
  EmitResult result;
  GLASSBOX_ASSIGN_OR_RETURN(result.program, ProgramWriter(lowered_graph, plan).write());

  const flatbuffers::String* field = gbx::GetProgram(result.program.data())->fingerprint();
  const auto begin = static_cast<std::size_t>(reinterpret_cast<const std::uint8_t*>(field->data()) -
                                              result.program.data());
  result.fingerprint = internal::fingerprint_hex(
      internal::fnv1a_with_zeroed_range(result.program, begin, kFingerprintLength));
  std::memcpy(result.program.data() + begin, result.fingerprint.data(), kFingerprintLength);

  const std::string method(kForwardMethod);
  result.debug_handle_map[method] = std::move(maps.debug_handles);
  result.delegate_map[method] = std::move(maps.delegates);
  result.instruction_id_to_num_outs_map[method] = std::move(maps.num_outs);
  return result;
}

}  // namespace glassbox::aot
