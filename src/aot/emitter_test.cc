#include "glassbox/aot/emitter.h"

#include <gtest/gtest.h>

#include <cstring>

#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/aot/demo_model.h"
#include "glassbox/aot/graph_builder.h"
#include "glassbox/aot/memory_plan.h"
#include "glassbox/aot/to_backend.h"
#include "program_generated.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using backends::demo::build_conv_relu_tan_model;
using backends::demo::DemoBackend;
using backends::demo::make_demo_partitioner;
using testing::ErrorIs;
using testing::IsOk;

const std::string kForward(kForwardMethod);

template <typename T>
T value_of(StatusOr<T> result) {
  EXPECT_THAT(result, IsOk());
  return result.ok() ? std::move(result).value() : T{};
}

Graph demo_model() { return value_of(build_conv_relu_tan_model()); }

Graph lower_demo(const Graph& graph, const std::string& ids = "generated") {
  DemoBackend backend;
  const Partitioner partitioner = make_demo_partitioner(backend);
  const std::vector<CompileSpec> specs{CompileSpec::from_string("identifiers", ids)};
  return value_of(to_backend(graph, partitioner, specs));
}

// Verifies the buffer the way the runtime does, then returns its root.
const gbx::Program* verified(const std::vector<std::uint8_t>& bytes) {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  EXPECT_TRUE(gbx::ProgramBufferHasIdentifier(bytes.data()));
  EXPECT_TRUE(gbx::VerifyProgramBuffer(verifier));
  return gbx::GetProgram(bytes.data());
}

std::vector<DebugHandle> handles(std::initializer_list<std::uint32_t> values) {
  std::vector<DebugHandle> out;
  for (std::uint32_t v : values) out.emplace_back(v);
  return out;
}

TEST(EmitterTest, DemoModelLoweredToOneDelegateCall) {
  const Graph edge = demo_model();
  const Graph lowered = lower_demo(edge);
  const EmitResult result = value_of(emit(lowered, {.edge_graph = &edge}));
  const gbx::Program* program = verified(result.program);
  EXPECT_EQ(program->version(), kProgramVersion);
  ASSERT_EQ(program->methods()->size(), 1u);
  const gbx::Method* method = program->methods()->Get(0);
  EXPECT_EQ(method->name()->str(), kForward);
  ASSERT_EQ(method->instructions()->size(), 1u);
  const gbx::Instruction* instr = method->instructions()->Get(0);
  ASSERT_NE(instr->args_as_DelegateCall(), nullptr);
  EXPECT_EQ(instr->args_as_DelegateCall()->delegate_index(), 0);
  EXPECT_EQ(instr->debug_handle(), 6u);  // The delegate call's own handle.
  EXPECT_EQ(instr->name()->str(), "delegate_call");
  ASSERT_EQ(method->delegates()->size(), 1u);
  const gbx::BackendDelegate* delegate = method->delegates()->Get(0);
  EXPECT_EQ(delegate->backend()->str(), backends::demo::kDemoBackendName);
  const DelegateCall& call = *lowered.nodes[0].delegate;
  EXPECT_TRUE(std::equal(delegate->processed()->begin(), delegate->processed()->end(),
                         call.processed_bytes.begin(), call.processed_bytes.end()));
  ASSERT_EQ(delegate->compile_specs()->size(), 1u);
  EXPECT_EQ(delegate->compile_specs()->Get(0)->key()->str(), "identifiers");
  // All weights went into the delegate: no constants remain in the program.
  EXPECT_EQ(program->constants()->size(), 0u);
  EXPECT_EQ(program->fingerprint()->str(), result.fingerprint);

  EXPECT_EQ(result.debug_handle_map.at(kForward),
            (InstructionDebugHandles{{InstructionId(0), handles({1, 2, 3, 4, 5})}}));
  EXPECT_EQ(result.instruction_id_to_num_outs_map.at(kForward),
            (InstructionNumOuts{{InstructionId(0), 1}}));
  const DelegateMapEntry& entry = result.delegate_map.at(kForward).at(InstructionId(0));
  EXPECT_EQ(entry.backend, backends::demo::kDemoBackendName);
  const DebugHandleMap expected{{std::int64_t{0}, handles({1, 2})},
                                {std::int64_t{1}, handles({3, 4})},
                                {std::int64_t{2}, handles({5})},
                                {std::int64_t{3}, handles({5})},
                                {std::int64_t{4}, handles({5})}};
  EXPECT_EQ(entry.delegate_map, expected);
}

TEST(EmitterTest, NonDelegatedGraphGivesOneKernelCallPerNode) {
  const Graph graph = demo_model();
  const EmitResult result = value_of(emit(graph));
  const gbx::Method* method = verified(result.program)->methods()->Get(0);
  ASSERT_EQ(method->instructions()->size(), graph.nodes.size());
  EXPECT_EQ(method->delegates()->size(), 0u);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const gbx::Instruction* instr = method->instructions()->Get(static_cast<unsigned>(i));
    const gbx::KernelCall* call = instr->args_as_KernelCall();
    ASSERT_NE(call, nullptr);
    EXPECT_EQ(call->op()->str(), graph.nodes[i].op);
    EXPECT_EQ(instr->debug_handle(), graph.nodes[i].debug_handle.value);
    EXPECT_EQ(instr->name()->str(), graph.nodes[i].name);
    EXPECT_EQ(result.debug_handle_map.at(kForward).at(InstructionId(static_cast<int>(i))),
              std::vector<DebugHandle>{graph.nodes[i].debug_handle});
  }
  EXPECT_TRUE(result.delegate_map.at(kForward).empty());
  EXPECT_EQ(result.instruction_id_to_num_outs_map.at(kForward).size(), graph.nodes.size());

  // conv2d's attributes, in name order.
  const gbx::KernelCall* conv = method->instructions()->Get(0)->args_as_KernelCall();
  ASSERT_EQ(conv->attributes()->size(), 4u);
  EXPECT_EQ(conv->attributes()->Get(0)->name()->str(), "dilation");
  EXPECT_EQ(conv->attributes()->Get(0)->kind(), gbx::AttributeKind::Ints);
  EXPECT_EQ(conv->attributes()->Get(1)->name()->str(), "groups");
  EXPECT_EQ(conv->attributes()->Get(1)->int_value(), 1);
  EXPECT_EQ(conv->attributes()->Get(2)->name()->str(), "padding");
  EXPECT_EQ(conv->attributes()->Get(2)->ints()->Get(0), 1);

  // Constants carry their floats; activations carry planned offsets.
  const gbx::Program* program = verified(result.program);
  const MemoryPlan plan = value_of(plan_memory(graph));
  EXPECT_THAT(check_memory_plan(graph, plan), IsOk());
  EXPECT_EQ(method->arena_bytes(), static_cast<std::uint64_t>(plan.arena_bytes));
  for (std::size_t v = 0; v < graph.values.size(); ++v) {
    const Value& value = graph.values[v];
    const gbx::Tensor* tensor = method->values()->Get(static_cast<unsigned>(v));
    EXPECT_EQ(tensor->name()->str(), value.name);
    if (value.kind == ValueKind::kConstant) {
      ASSERT_GE(tensor->constant_index(), 0);
      const auto* data =
          program->constants()->Get(static_cast<unsigned>(tensor->constant_index()))->data();
      ASSERT_EQ(data->size(), value.data.size() * sizeof(float));
      EXPECT_EQ(std::memcmp(data->data(), value.data.data(), data->size()), 0);
      EXPECT_EQ(tensor->arena_offset(), -1);
    } else {
      EXPECT_EQ(tensor->constant_index(), -1);
      EXPECT_EQ(tensor->arena_offset(), plan.values.at(value.id).offset);
    }
  }
}

TEST(EmitterTest, PartiallyLoweredGraphMixesKernelAndDelegateCalls) {
  // sigmoid is not supported by the demo backend: it stays a kernel call.
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {1, 2, 4, 4});
  x = b.sigmoid(b.tan(b.relu(x)));
  b.output(b.relu(x));
  const Graph edge = value_of(b.build());
  const Graph lowered = lower_demo(edge, "string");
  const EmitResult result = value_of(emit(lowered, {.edge_graph = &edge}));
  const gbx::Method* method = verified(result.program)->methods()->Get(0);
  ASSERT_EQ(method->instructions()->size(), 3u);
  EXPECT_NE(method->instructions()->Get(0)->args_as_DelegateCall(), nullptr);
  EXPECT_NE(method->instructions()->Get(1)->args_as_KernelCall(), nullptr);
  EXPECT_NE(method->instructions()->Get(2)->args_as_DelegateCall(), nullptr);
  EXPECT_EQ(method->instructions()->Get(2)->args_as_DelegateCall()->delegate_index(), 1);
  EXPECT_EQ(result.debug_handle_map.at(kForward),
            (InstructionDebugHandles{{InstructionId(0), handles({1, 2})},
                                     {InstructionId(1), handles({3})},
                                     {InstructionId(2), handles({4})}}));
  EXPECT_EQ(result.delegate_map.at(kForward).size(), 2u);
  EXPECT_EQ(
      kind_of(result.delegate_map.at(kForward).at(InstructionId(0)).delegate_map->begin()->first),
      IdentifierKind::kString);
}

TEST(EmitterTest, WithoutEdgeGraphDelegateHandlesComeFromItsMap) {
  const Graph edge = demo_model();
  Graph lowered = lower_demo(edge);
  EXPECT_EQ(value_of(emit(lowered)).debug_handle_map.at(kForward).at(InstructionId(0)),
            handles({1, 2, 3, 4, 5}));
  // The documented limitation: a backend that returns no map covers nothing.
  lowered.nodes[0].delegate->debug_handle_map.reset();
  const EmitResult result = value_of(emit(lowered));
  EXPECT_TRUE(result.debug_handle_map.at(kForward).empty());
  EXPECT_EQ(result.delegate_map.at(kForward).at(InstructionId(0)).delegate_map, std::nullopt);
  // With the edge graph the coverage is exact again.
  EXPECT_EQ(value_of(emit(lowered, {.edge_graph = &edge}))
                .debug_handle_map.at(kForward)
                .at(InstructionId(0)),
            handles({1, 2, 3, 4, 5}));
}

TEST(EmitterTest, WrongEdgeGraphIsAMismatch) {
  const Graph lowered = lower_demo(demo_model());
  GraphBuilder b;
  b.output(b.relu(b.input("y", ScalarType::kFloat, {2})));
  const Graph other = value_of(b.build());
  EXPECT_THAT(emit(lowered, {.edge_graph = &other}), ErrorIs(Error::kMismatch, {"delegate_call"}));
}

TEST(EmitterTest, FingerprintIsStableAndTracksWeights) {
  const Graph graph = demo_model();
  const EmitResult first = value_of(emit(graph));
  const EmitResult second = value_of(emit(graph));
  EXPECT_EQ(first.program, second.program);
  EXPECT_EQ(first.fingerprint, second.fingerprint);
  EXPECT_EQ(first.fingerprint.size(), kFingerprintLength);
  EXPECT_EQ(value_of(fingerprint_of(first.program)), first.fingerprint);

  Graph changed = graph;
  for (Value& value : changed.values) {
    if (value.kind == ValueKind::kConstant) {
      value.data[0] += 1.0f;
      break;
    }
  }
  const EmitResult third = value_of(emit(changed));
  EXPECT_NE(third.fingerprint, first.fingerprint);
  EXPECT_EQ(value_of(fingerprint_of(third.program)), third.fingerprint);

  // The stored digits are not trusted: fingerprint_of recomputes.
  std::vector<std::uint8_t> tampered = first.program;
  const auto* field = gbx::GetProgram(tampered.data())->fingerprint();
  const auto at = static_cast<std::size_t>(reinterpret_cast<const std::uint8_t*>(field->data()) -
                                           tampered.data());
  tampered[at] = tampered[at] == 'f' ? 'e' : 'f';
  EXPECT_EQ(value_of(fingerprint_of(tampered)), first.fingerprint);
}

TEST(EmitterTest, FingerprintOfRejectsGarbage) {
  const EmitResult result = value_of(emit(demo_model()));
  EXPECT_THAT(fingerprint_of({}), ErrorIs(Error::kCorruptData));
  const std::vector<std::uint8_t> truncated(result.program.begin(), result.program.begin() + 40);
  EXPECT_THAT(fingerprint_of(truncated), ErrorIs(Error::kCorruptData));
}

TEST(EmitterTest, ConstantWithoutDataIsAnError) {
  Graph graph = demo_model();
  for (Value& value : graph.values) {
    if (value.kind == ValueKind::kConstant) value.data.clear();
  }
  EXPECT_THAT(emit(graph), ErrorIs(Error::kInvalidArgument, {"conv_layer.conv1.weight"}));
}

}  // namespace
}  // namespace glassbox::aot
