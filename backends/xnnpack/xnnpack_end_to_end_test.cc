// Both halves end to end, like backends/demo/demo_end_to_end_test.cc: the
// demo model, a ResNet-like CNN, a MobileNet-like CNN and a decoder using
// every operator of format 1.1 are lowered to
// XNNPACK, emitted, loaded and run under ETDumpGen, and checked against
// the same graph on the portable kernels (tolerance 1e-4, see
// xnnpack_ops_test.cc) and for coverage: every logged identifier is in the
// delegate's debug handle map and vice versa, every identifier maps to at
// least one source op, and every source op the partitioner gave the
// delegate is covered by some identifier.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "backends/demo/aot/demo_model.h"
#include "backends/xnnpack/testing/xnnpack_test_models.h"
#include "backends/xnnpack/testing/xnnpack_test_runner.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"

namespace glassbox::backends::xnnpack {
namespace {

constexpr double kTolerance = 1e-4;

StatusOr<aot::Graph> model(const std::string& name) {
  if (name == "demo") return demo::build_conv_relu_tan_model();
  if (name == "resnet_like") return build_resnet_like();
  if (name == "decoder_like") return build_decoder_like();
  return build_mobile_like();
}

std::string id_text(const aot::DelegateDebugIdentifier& id) {
  return std::holds_alternative<std::int64_t>(id) ? std::to_string(std::get<std::int64_t>(id))
                                                  : std::get<std::string>(id);
}

struct Traced {
  std::vector<float> output;
  etdump::ETDumpFile dump;
};

Traced run_traced(const std::vector<std::uint8_t>& bytes) {
  etdump::ETDumpGen gen;
  gen.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  std::string error;
  Traced t;
  t.output = testing::run_once(bytes, &gen, &error);
  EXPECT_TRUE(error.empty()) << error;
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*gen.get_etdump_data(), "xnn");
  EXPECT_TRUE(dump.ok()) << dump.message();
  if (dump.ok()) t.dump = *dump;
  return t;
}

class XnnpackEndToEndTest
    : public ::testing::TestWithParam<std::tuple<const char*, const char*, const char*>> {};

INSTANTIATE_TEST_SUITE_P(ModelsIdsModes, XnnpackEndToEndTest,
                         ::testing::Combine(::testing::Values("demo", "resnet_like", "mobile_like",
                                                              "decoder_like"),
                                            ::testing::Values("generated", "string"),
                                            ::testing::Values("realtime", "posttime")),
                         [](const auto& param_info) {
                           return std::string(std::get<0>(param_info.param)) + "_" +
                                  std::get<1>(param_info.param) + "_" +
                                  std::get<2>(param_info.param);
                         });

TEST_P(XnnpackEndToEndTest, MatchesPortableAndCoversEverySourceOp) {
  const auto [model_name, ids, mode] = GetParam();
  StatusOr<aot::Graph> graph = model(model_name);
  ASSERT_TRUE(graph.ok()) << graph.message();
  auto delegated =
      testing::export_graph(*graph, true,
                            {aot::CompileSpec::from_string(kIdentifiersSpecKey, ids),
                             aot::CompileSpec::from_string(runtime::kProfilingSpecKey, mode)});
  auto portable = testing::export_graph(*graph, false);
  ASSERT_TRUE(delegated.ok()) << delegated.message();
  ASSERT_TRUE(portable.ok()) << portable.message();

  const Traced d = run_traced(delegated->buffer());
  std::string error;
  const std::vector<float> p = testing::run_once(portable->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_LT(testing::max_relative_error(d.output, p), kTolerance);

  // The source ops the partitioner handed to XNNPACK.
  XnnpackBackend backend;
  StatusOr<std::vector<aot::Partition>> partitions =
      make_xnnpack_partitioner(backend).partition(*graph);
  ASSERT_TRUE(partitions.ok());
  std::set<DebugHandle> delegated_ops;
  for (const aot::Partition& part : *partitions) {
    for (std::size_t n : part.node_indices) delegated_ops.insert(graph->nodes[n].debug_handle);
  }
  ASSERT_FALSE(delegated_ops.empty());

  std::set<DebugHandle> covered;
  std::set<std::string> mapped;
  std::map<InstructionId, std::set<std::string>> mapped_by_instruction;
  for (const auto& [instruction, entry] : delegated->delegate_map().at("forward")) {
    EXPECT_EQ(entry.backend, kXnnpackBackendName);
    ASSERT_TRUE(entry.delegate_map.has_value());
    for (const auto& [id, handles] : *entry.delegate_map) {
      EXPECT_FALSE(handles.empty()) << id_text(id) << " maps to no source op";
      covered.insert(handles.begin(), handles.end());
      mapped.insert(id_text(id));
      mapped_by_instruction[instruction].insert(id_text(id));
      if (std::string(ids) == "string") {
        EXPECT_TRUE(std::holds_alternative<std::string>(id));
      }
    }
  }
  EXPECT_EQ(covered, delegated_ops) << "every delegated source op is covered, nothing else";

  ASSERT_EQ(d.dump.runs.size(), 2u);
  std::map<InstructionId, std::set<std::string>> logged;
  int outputs_logged = 0;
  for (const etdump::Event& e : d.dump.runs[1].events) {
    if (const etdump::ProfileEvent* pe = e.profile()) {
      if (pe->name.has_value()) continue;  // runtime events, not delegate ones
      logged[pe->instruction_id].insert(pe->delegate_debug_id_str
                                            ? *pe->delegate_debug_id_str
                                            : std::to_string(pe->delegate_debug_id_int.value));
      ASSERT_TRUE(pe->delegate_debug_metadata.has_value());
      const std::string type(pe->delegate_debug_metadata->begin(),
                             pe->delegate_debug_metadata->end());
      EXPECT_TRUE(type.ends_with("_f32") || type.ends_with("_x32") ||
                  type.starts_with("glassbox_") || type == "layout: NCHW->NHWC" ||
                  type == "layout: NHWC->NCHW")
          << type;
      EXPECT_LE(pe->start_time, pe->end_time);
    } else if (e.debug() != nullptr) {
      ++outputs_logged;
    }
  }
  EXPECT_EQ(logged, mapped_by_instruction) << "logged identifiers == mapped identifiers";
  EXPECT_GE(outputs_logged, static_cast<int>(mapped.size()));
}

TEST(XnnpackEndToEndTest, ResNetLikeFusesConvBatchNormRelu) {
  StatusOr<aot::Graph> graph = build_resnet_like();
  ASSERT_TRUE(graph.ok());
  auto program = testing::export_graph(
      *graph, true, {aot::CompileSpec::from_string(kIdentifiersSpecKey, "string")});
  ASSERT_TRUE(program.ok()) << program.message();
  const auto& delegates = program->delegate_map().at("forward");
  ASSERT_EQ(delegates.size(), 1u) << "the whole network is one delegate";
  const aot::DebugHandleMap& map = *delegates.begin()->second.delegate_map;
  int three_way = 0;
  for (const auto& [id, handles] : map) {
    const std::string& name = std::get<std::string>(id);
    if (name.find("batch_norm") != std::string::npos && name.find("relu") != std::string::npos) {
      EXPECT_EQ(handles.size(), 3u) << name;
      ++three_way;
    }
  }
  // stem + 4 blocks' first convs.
  EXPECT_EQ(three_way, 5);
}

}  // namespace
}  // namespace glassbox::backends::xnnpack
