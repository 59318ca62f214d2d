// Quantization debugging end to end, on small int8 CNNs built here: lower
// with the quantization references, run with intermediates, and the quant
// view. A defect planted by hand in one activation's scale (64x coarser, or
// 16x smaller so it clips) must be the worst row by isolated SQNR, with no
// op downstream of it ranked above it.

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/test_models.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etrecord/quant_reference.h"
#include "glassbox/etrecord/reference_runner.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/inspector/quant.h"
#include "glassbox/io/file.h"
#include "glassbox/io/output_files.h"
#include "glassbox/runner/program_runner.h"

namespace glassbox::frontends::onnx {
namespace {

using ::onnx::TensorProto;
using testing::ModelWriter;

constexpr int kLayers = 4;
constexpr int kChannels = 4;
constexpr int kSize = 8;

std::vector<float> random_floats(std::size_t n, float scale, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// Four 3x3 convolutions with ReLU, channels 4 -> 4, in float (the twin) or
// in QDQ form: uint8 activations (zero point 0 after ReLU), int8 weights
// per output channel. `act_scale[l]` quantizes layer l's output.
ModelWriter cnn(bool quantized, const std::vector<std::vector<float>>& weights,
                const std::vector<float>& act_scale, float input_scale) {
  ModelWriter m(13);
  m.input("x", {1, kChannels, kSize, kSize}).output("y");
  std::string x = "x";
  if (quantized) {
    m.floats("in_s", {}, {input_scale});
    m.typed_ints("in_z", {}, {128}, TensorProto::UINT8);
    m.node("QuantizeLinear", "/input/q", {"x", "in_s", "in_z"}, {"xq"});
    m.node("DequantizeLinear", "/input/dq", {"xq", "in_s", "in_z"}, {"xf"});
    x = "xf";
  }
  for (int l = 0; l < kLayers; ++l) {
    const std::string p = "/layer" + std::to_string(l);
    const std::vector<float>& w = weights[static_cast<std::size_t>(l)];
    std::string w_name = p + "/w";
    if (quantized) {
      // Per output channel: scale = max |w| / 127.
      const std::size_t per = w.size() / kChannels;
      std::vector<float> scales;
      std::vector<std::int64_t> q;
      for (int oc = 0; oc < kChannels; ++oc) {
        float hi = 0;
        for (std::size_t i = 0; i < per; ++i) hi = std::max(hi, std::abs(w[oc * per + i]));
        scales.push_back(hi / 127.0f);
        for (std::size_t i = 0; i < per; ++i) {
          q.push_back(static_cast<std::int64_t>(std::nearbyint(w[oc * per + i] / scales.back())));
        }
      }
      m.floats(p + "/w_s", {kChannels}, scales);
      m.typed_ints(p + "/w_z", {kChannels}, std::vector<std::int64_t>(kChannels, 0),
                   TensorProto::INT8);
      m.typed_ints(p + "/w_q", {kChannels, kChannels, 3, 3}, q, TensorProto::INT8);
      ModelWriter::set_int(m.node("DequantizeLinear", p + "/w_dq",
                                  {p + "/w_q", p + "/w_s", p + "/w_z"}, {w_name + "f"}),
                           "axis", 0);
      w_name += "f";
    } else {
      m.floats(w_name, {kChannels, kChannels, 3, 3}, w);
    }
    ModelWriter::set_ints(m.node("Conv", p + "/conv/Conv", {x, w_name}, {p + "/c"}), "pads",
                          {1, 1, 1, 1});
    const std::string r = l + 1 == kLayers && !quantized ? "y" : p + "/r";
    m.node("Relu", p + "/relu/Relu", {p + "/c"}, {r});
    x = r;
    if (quantized) {
      m.floats(p + "/s", {}, {act_scale[static_cast<std::size_t>(l)]});
      m.typed_ints(p + "/z", {}, {0}, TensorProto::UINT8);
      m.node("QuantizeLinear", p + "/q", {r, p + "/s", p + "/z"}, {p + "/rq"});
      x = l + 1 == kLayers ? "y" : p + "/rf";
      m.node("DequantizeLinear", p + "/dq", {p + "/rq", p + "/s", p + "/z"}, {x});
    }
  }
  return m;
}

class QuantDebugTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("glassbox_quant_debug_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    for (int l = 0; l < kLayers; ++l) {
      weights_.push_back(
          random_floats(kChannels * kChannels * 9, 0.4f, static_cast<std::uint32_t>(11 + l)));
    }
    input_ = random_floats(kChannels * kSize * kSize, 1.0f, 3);
    // Calibration: each layer's largest float output, on the input.
    StatusOr<aot::Graph> twin = import_onnx_from_memory(cnn(false, weights_, {}, 0).bytes());
    ASSERT_TRUE(twin.ok()) << twin.message();
    twin_ = *twin;
    std::vector<etrecord::ReferenceTensor> inputs{{{1, kChannels, kSize, kSize}, input_}};
    StatusOr<etrecord::ReferenceRun> run = etrecord::run_reference(twin_, inputs);
    ASSERT_TRUE(run.ok()) << run.message();
    for (const auto& [handle, outputs] : run->op_outputs) {
      const aot::Node* relu = nullptr;
      for (const aot::Node& n : twin_.nodes) {
        if (n.debug_handle == handle && n.op == "relu") relu = &n;
      }
      if (relu == nullptr) continue;
      const float hi = *std::max_element(outputs[0].data.begin(), outputs[0].data.end());
      scales_.push_back(hi / 255.0f);
    }
    ASSERT_EQ(scales_.size(), static_cast<std::size_t>(kLayers));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Lowers (portable), runs with intermediates and builds the quant view.
  StatusOr<inspector::QuantReport> debug(const std::vector<float>& act_scale, bool with_twin,
                                         const inspector::FloatRun& float_run = {}) {
    StatusOr<aot::Graph> graph =
        import_onnx_from_memory(cnn(true, weights_, act_scale, 4.0f / 255).bytes());
    if (!graph.ok()) return graph.status();
    exporter::Recipe recipe;
    recipe.generate_etrecord = true;
    GLASSBOX_ASSIGN_OR_RETURN(auto program, exporter::export_model(*graph, recipe));
    const std::string gbx = (dir_ / "m.gbx").string();
    GLASSBOX_RETURN_IF_ERROR(program.save(gbx));
    GLASSBOX_ASSIGN_OR_RETURN(etrecord::ETRecord record, program.get_etrecord());
    GLASSBOX_RETURN_IF_ERROR(
        etrecord::attach_reference(*graph, {{{1, kChannels, kSize, kSize}, input_}}, &record));
    GLASSBOX_RETURN_IF_ERROR(
        etrecord::attach_quantization_reference(*graph, with_twin ? &twin_ : nullptr, &record));
    const std::string input = (dir_ / "x.bin").string();
    GLASSBOX_RETURN_IF_ERROR(
        io::write_file(input, std::string_view(reinterpret_cast<const char*>(input_.data()),
                                               input_.size() * sizeof(float))));
    runner::RunOptions run;
    run.program_path = gbx;
    run.etdump_path = (dir_ / "r.etdp").string();
    run.debug_data_path = (dir_ / "d.bin").string();
    run.debug_level = runtime::DebugLevel::kIntermediateOutputs;
    run.input_path = input;
    GLASSBOX_RETURN_IF_ERROR(runner::run_program(run).status());
    GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(run.etdump_path));
    GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> data, io::read_file(run.debug_data_path));
    return inspector::compare_quantization(dump, record, data, {}, float_run);
  }

  // Lowers the float twin (portable) with its ETRecord, runs it traced,
  // and returns what the keep-in-float ranking reads.
  Status run_twin(etdump::ETDumpFile* dump, etrecord::ETRecord* record) {
    exporter::Recipe recipe;
    recipe.generate_etrecord = true;
    GLASSBOX_ASSIGN_OR_RETURN(auto program, exporter::export_model(twin_, recipe));
    const std::string gbx = (dir_ / "f.gbx").string();
    GLASSBOX_RETURN_IF_ERROR(program.save(gbx));
    GLASSBOX_ASSIGN_OR_RETURN(*record, program.get_etrecord());
    runner::RunOptions run;
    run.program_path = gbx;
    run.etdump_path = (dir_ / "f.etdp").string();
    run.iterations = 3;
    GLASSBOX_RETURN_IF_ERROR(runner::run_program(run).status());
    GLASSBOX_ASSIGN_OR_RETURN(*dump, etdump::load_etdump_file(run.etdump_path));
    return Status();
  }

  // Layer of a row ("/layer2/conv/Conv" -> 2).
  static int layer_of(const inspector::QuantRow& row) {
    const std::string& name = row.op_names.front();
    return name[6] - '0';
  }

  std::filesystem::path dir_;
  std::vector<std::vector<float>> weights_;
  std::vector<float> input_;
  std::vector<float> scales_;
  aot::Graph twin_;
};

TEST_F(QuantDebugTest, HealthyModelHasOneRowPerConvReluAndAgreesWithTheSimulation) {
  StatusOr<inspector::QuantReport> report = debug(scales_, true);
  ASSERT_TRUE(report.ok()) << report.message();
  ASSERT_EQ(report->rows.size(), static_cast<std::size_t>(kLayers));
  for (const inspector::QuantRow& row : report->rows) {
    // The row names the conv the user wrote, with its fused relu.
    EXPECT_EQ(row.op_types, (std::vector<std::string>{"conv2d", "relu"}));
    ASSERT_TRUE(row.isolated_sqnr_db && row.quant_sqnr_db && row.kernel_sqnr_db && row.sqnr_db);
    // 8 bits of a calibrated ReLU output: well above 30 dB on its own.
    EXPECT_GT(*row.isolated_sqnr_db, 30.0) << row.op_names.front();
    // The portable run is the simulation: exactly.
    EXPECT_EQ(*row.max_error_steps, 0.0);
    EXPECT_DOUBLE_EQ(*row.sqnr_db, *row.quant_sqnr_db);
    EXPECT_LT(*row.clipped_fraction, 0.01);
  }
}

// Scale 64x coarser on layer 1, or 16x smaller (it clips): layer 1 is the
// worst row by isolated SQNR, and no layer after it ranks above it.
TEST_F(QuantDebugTest, APlantedScaleDefectIsTheWorstIsolatedRow) {
  for (float factor : {64.0f, 1.0f / 16}) {
    SCOPED_TRACE(factor);
    std::vector<float> planted = scales_;
    planted[1] *= factor;
    for (bool with_twin : {true, false}) {
      StatusOr<inspector::QuantReport> report = debug(planted, with_twin);
      ASSERT_TRUE(report.ok()) << report.message();
      ASSERT_EQ(report->rows.size(), static_cast<std::size_t>(kLayers));
      EXPECT_EQ(layer_of(report->rows.front()), 1) << report->rows.front().op_names.front();
      for (std::size_t i = 1; i < report->rows.size(); ++i) {
        EXPECT_LT(*report->rows.front().isolated_sqnr_db, *report->rows[i].isolated_sqnr_db - 3)
            << "a planted defect stands out by more than 3 dB";
      }
      if (factor < 1) {
        EXPECT_GT(*report->rows.front().clipped_fraction, 0.2);
      }
    }
  }
}

// With the float twin's run, the keep-in-float candidates are ranked by SQNR
// gained per ms. The gain does not depend on timing: the planted layer's is
// the largest by far; the ranking orders every row by gain per ms.
TEST_F(QuantDebugTest, KeepInFloatGainIsLargestForThePlantedLayer) {
  etdump::ETDumpFile float_dump;
  etrecord::ETRecord float_record;
  ASSERT_TRUE(run_twin(&float_dump, &float_record).ok());
  std::vector<float> planted = scales_;
  planted[2] *= 64;
  StatusOr<inspector::QuantReport> report = debug(planted, true, {&float_dump, &float_record});
  ASSERT_TRUE(report.ok()) << report.message();
  ASSERT_EQ(report->keep_float_ranking.size(), static_cast<std::size_t>(kLayers));
  const inspector::QuantRow* planted_row = nullptr;
  for (const inspector::QuantRow& row : report->rows) {
    ASSERT_TRUE(row.int8_ms && row.float_ms && row.keep_float_gain_db && row.gain_db_per_ms);
    if (layer_of(row) == 2) planted_row = &row;
  }
  ASSERT_NE(planted_row, nullptr);
  EXPECT_GT(*planted_row->keep_float_gain_db, 3.0);
  for (const inspector::QuantRow& row : report->rows) {
    if (&row != planted_row) {
      EXPECT_LT(*row.keep_float_gain_db, *planted_row->keep_float_gain_db - 1.0)
          << row.op_names.front();
    }
  }
  for (std::size_t k = 1; k < report->keep_float_ranking.size(); ++k) {
    EXPECT_GE(*report->rows[report->keep_float_ranking[k - 1]].gain_db_per_ms,
              *report->rows[report->keep_float_ranking[k]].gain_db_per_ms);
  }
}

}  // namespace
}  // namespace glassbox::frontends::onnx
