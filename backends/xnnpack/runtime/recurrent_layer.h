#pragma once
/// @file
/// Format 1.7's kRecurrent (xnnpack_format.h): one ONNX LSTM, GRU or RNN
/// layer run as its unrolled cell. XNNPACK 2022 has no recurrent operator,
/// but the layer's work is its matrix products, which it has: one fully
/// connected operator computes x W^T + Wb for every time step at once
/// ([T*N, I] rows), one more h R^T + Rb per step; the gates (activations,
/// clip, the element-wise products and sums) are our own loops over the
/// portable kernels' vectorised sigmoid / tanh / relu. The whole layer is
/// one delegate operator, so it is one event under the layer's identifier,
/// and its logged output is Y.
///
/// Every scratch buffer (the projections, the state) is taken from the
/// delegate's allocator at init: nothing allocates while running.

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/runtime/program_parser.h"
#include "glassbox/core/result.h"
#include "glassbox/runtime/memory_allocator.h"

namespace glassbox::backends::xnnpack {

struct RecurrentLayer;

/// Checks kRecurrent `op`'s params against its operands (slots) and gives
/// the Y dims it implies; the parser's rule for the kind.
ErrorInfo recurrent_output_shape(const ParsedOp& op, const SlotDesc* slots, std::int64_t* dims,
                                 std::size_t* rank);

/// The parser's rule for kRecurrentState op `index` of `program` (its
/// earlier ops parsed): it reads the output of the kRecurrent operator
/// right before it (or before its sibling state); gives its dims.
ErrorInfo recurrent_state_shape(const ParsedProgram& program, std::uint32_t index,
                                std::int64_t* dims, std::size_t* rank);

/// Weight and bias float counts of kRecurrent params `p` (its 12 u32s);
/// false on overflow.
bool recurrent_weight_counts(const std::uint32_t* p, std::uint64_t* weights, std::uint64_t* bias);

/// Creates the layer for op `index` of `program` (kRecurrent, validated)
/// reading and writing `buffers`, and the kRecurrentState operators after
/// it (whose slots it writes last); its XNNPACK operators are set up on
/// `pool` (may be null). On error nothing is left to delete.
ErrorInfo compile_recurrent_layer(const ParsedProgram& program, std::uint32_t index,
                                  float* const* buffers, pthreadpool_t pool,
                                  runtime::MemoryAllocator* memory, RecurrentLayer** out);

/// Runs every step of every direction. kInternal if XNNPACK fails.
Error run_recurrent_layer(const RecurrentLayer& layer, pthreadpool_t pool);

/// Deletes its XNNPACK operators (idempotent).
void delete_recurrent_layer(RecurrentLayer* layer);

}  // namespace glassbox::backends::xnnpack
