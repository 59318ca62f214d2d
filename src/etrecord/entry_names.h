#pragma once
// The archive's entry names, spelled once for the writer and the reader.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace glassbox::etrecord::internal {

inline constexpr std::string_view kFingerprintEntry = "fingerprint";
inline constexpr std::string_view kDebugHandleMapEntry = "debug_handle_map.json";
inline constexpr std::string_view kDelegateMapEntry = "delegate_map.json";
inline constexpr std::string_view kNumOutsMapEntry = "instruction_id_to_num_outs_map.json";
inline constexpr std::string_view kMethodsPrefix = "methods/";
inline constexpr std::string_view kEdgeGraphSuffix = "/edge_graph.json";
inline constexpr std::string_view kReferencePrefix = "reference/";
inline constexpr std::string_view kInputs = "inputs";
inline constexpr std::string_view kOutputs = "outputs";
inline constexpr std::string_view kOpsPrefix = "reference/ops/";
inline constexpr std::string_view kFloatOpsPrefix = "reference/float_ops/";
inline constexpr std::string_view kIsolatedOpsPrefix = "reference/isolated_ops/";

inline std::string edge_graph_entry(std::string_view method) {
  return std::string(kMethodsPrefix) + std::string(method) + std::string(kEdgeGraphSuffix);
}

// "reference/inputs/3" (+ ".bin" / ".json").
inline std::string reference_stem(std::string_view kind, std::size_t index) {
  return std::string(kReferencePrefix) + std::string(kind) + "/" + std::to_string(index);
}

// "reference/ops/5/0" (+ ".bin" / ".json"): output 0 of debug handle 5
// (`prefix` kOpsPrefix; kFloatOpsPrefix and kIsolatedOpsPrefix likewise).
inline std::string op_output_stem(std::uint32_t handle, std::size_t index,
                                  std::string_view prefix = kOpsPrefix) {
  return std::string(prefix) + std::to_string(handle) + "/" + std::to_string(index);
}

}  // namespace glassbox::etrecord::internal
