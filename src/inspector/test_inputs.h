#pragma once
// Test-only: synthetic ETDumps (the model structs, as the reader returns
// them) and ETRecords built in memory, shaped like the demo pipeline:
// one delegate at instruction 0 holding conv1+relu1 (fused), conv2+relu2
// (fused) and tan decomposed into sin, cos and div.

#include <cstdint>
#include <string>

#include "glassbox/etdump/etdump_model.h"
#include "glassbox/etrecord/etrecord.h"

namespace glassbox::inspector::testing {

enum class Ids { kInt, kString };

inline constexpr char kFingerprint[] = "00112233aabbccdd";
inline constexpr std::int64_t kFirstIntId = 100;

/// The ETRecord: edge graph conv2d(1) relu(2) conv2d_1(3) relu_1(4) tan(5)
/// with module paths conv_layer.conv1 ... (tan has none); instruction 0 is
/// the delegate call "DemoBackend" with {100: [1,2], 101: [3,4], 102: [5],
/// 103: [5], 104: [5]} (int) or {"conv_relu_1", "conv_relu_2", "tan.sin",
/// "tan.cos", "tan.div"} (string).
etrecord::ETRecord demo_record(Ids ids);

/// Appends events to a dump, times in ticks.
class DumpBuilder {
 public:
  DumpBuilder();
  DumpBuilder& run(const std::string& name);
  DumpBuilder& op(const std::string& name, std::int32_t instruction, Ticks start, Ticks end,
                  std::int32_t thread = 0);
  DumpBuilder& int_event(std::int32_t id, std::int32_t instruction, Ticks start, Ticks end,
                         std::int32_t thread = 0);
  DumpBuilder& str_event(const std::string& id, std::int32_t instruction, Ticks start, Ticks end,
                         std::int32_t thread = 0);
  /// ExecuTorch-written files have none of the extensions.
  DumpBuilder& no_extensions();
  etdump::ETDumpFile& file() { return file_; }
  etdump::ETDumpFile build() const { return file_; }

 private:
  etdump::ETDumpFile file_;
};

/// `runs` executions of the demo delegate; run r's events last
/// conv_relu_1 1000+10r, conv_relu_2 2000+20r, sin 300, cos 200, div 100,
/// with a 50-tick gap inside DELEGATE_CALL and 25 ticks around it in
/// Method::execute. A "Default" run with Method::init comes first.
etdump::ETDumpFile demo_dump(Ids ids, int runs = 3);

}  // namespace glassbox::inspector::testing
