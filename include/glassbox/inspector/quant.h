#pragma once
/// @file
/// The quant view (`inspect --view quant`): for every quantized operator of
/// an int8 model, three references and what the delegate computed, joined on
/// the operator's debug handle.
///
///   float       float_op_outputs: the float twin, or the graph with its
///               activations unquantized (quant_reference.h)
///   simulation  reference_op_outputs: the QDQ graph on the portable kernels
///   delegate    the run's logged output for the op (--debug-level
///               intermediates), dequantized with the op's output scale and
///               zero point when it was logged as int8
///   isolated    isolated_op_outputs: the op alone on float inputs, only its
///               own output quantized
///
/// SQNR = 10 log10(sum ref^2 / sum (ref - x)^2) in dB, the first tensor the
/// signal, both sums floored at 1e-30 (so identical tensors read 300 dB less
/// log of the signal, a large finite number, never inf):
///
///   sqnr_db           float vs delegate (accumulated: everything upstream)
///   quant_sqnr_db     float vs simulation (quantization's loss)
///   kernel_sqnr_db    simulation vs delegate (the delegate's own error)
///   isolated_sqnr_db  float vs isolated (this op's own quantization)
///
/// Rows are sorted by isolated_sqnr_db, worst first: a tensor's scale is
/// counted at the op that produces it, so a bad scale is blamed on one row.
///
///   StatusOr<QuantReport> report = compare_quantization(dump, record, data, {});

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "glassbox/core/ids.h"
#include "glassbox/core/scalar_type.h"
#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/inspector/numeric.h"

namespace glassbox::inspector {

/// One quantized operator.
struct QuantRow {
  DebugHandle handle;
  std::vector<std::string> op_names;  ///< The source op(s), float op first.
  std::vector<std::string> op_types;
  std::string module;   ///< Module path of the op, "" at the top level.
  std::string backend;  ///< Who ran it ("" for a portable kernel call).
  /// The output quantization: type (CHAR or BYTE), scales and zero points
  /// (one each per tensor, or one per index of `axis`).
  ScalarType dtype = ScalarType::kChar;
  std::vector<double> scale;
  std::vector<std::int64_t> zero_point;
  std::int64_t axis = 1;
  /// nullopt when that side is missing (no delegate output logged, ...).
  std::optional<double> sqnr_db;
  std::optional<double> quant_sqnr_db;
  std::optional<double> kernel_sqnr_db;
  std::optional<double> isolated_sqnr_db;
  /// max |delegate - simulation| in output steps (the smallest scale).
  std::optional<double> max_error_steps;
  /// Share of the float reference's values beyond what the output type can
  /// hold ((qmin - zp) * scale .. (qmax - zp) * scale): saturated.
  std::optional<double> clipped_fraction;
  /// Keep-in-float ranking (needs the float twin's ETDump): mean time of
  /// the op in the int8 run and in the float run, and the estimated SQNR
  /// gained at the op's output if it stayed float, per ms it would cost.
  std::optional<double> int8_ms;
  std::optional<double> float_ms;
  std::optional<double> keep_float_gain_db;
  std::optional<double> gain_db_per_ms;
  std::string note;  ///< Why a side is missing, in words.
};

struct QuantReport {
  std::uint32_t execution = 0;
  std::vector<QuantRow> rows;  ///< Worst isolated SQNR first.
  /// Indices into rows, best keep-in-float candidate first (empty without
  /// the float run's timing).
  std::vector<std::size_t> keep_float_ranking;
  std::vector<Diagnostic> diagnostics;
};

/// The float twin's run, for the keep-in-float ranking: its ETDump and
/// ETRecord (aligned with the int8 one operator by operator).
struct FloatRun {
  const etdump::ETDumpFile* dump = nullptr;
  const etrecord::ETRecord* record = nullptr;
};

/// 10 log10(sum ref^2 / sum (ref - x)^2), sums floored at 1e-30. The
/// sizes must match (else NaN).
double sqnr_db(std::span<const float> reference, std::span<const double> x);

/// Builds the view from execution `options.execution` of `dump` (with its
/// `debug_data`) and `record`'s quantization references. `float_run`, when
/// given, adds the keep-in-float ranking. Errors: kInvalidArgument when the
/// record has no quantization references (say how to make them), and
/// compare_numerics's.
StatusOr<QuantReport> compare_quantization(const etdump::ETDumpFile& dump,
                                           const etrecord::ETRecord& record,
                                           std::span<const std::uint8_t> debug_data,
                                           const NumericOptions& options,
                                           const FloatRun& float_run = {});

/// table, csv, tsv or json (docs/inspector.md, "quant view").
StatusOr<std::string> render_quant(const QuantReport& report, Format format);

}  // namespace glassbox::inspector
