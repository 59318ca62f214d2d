#pragma once
/// @file
/// The runtime half of kRnn (onednn_format.h): one recurrent layer on
/// oneDNN's RNN primitives (lstm_forward, gru_forward, lbr_gru_forward,
/// vanilla_rnn_forward). Device code: oneDNN's C API, no exceptions,
/// memory from the caller's allocator.
///
/// Each direction runs its own unidirectional primitive (a bidirectional
/// layer two, left to right then right to left): oneDNN's
/// bidirectional_concat writes [T, N, 2H], ONNX's y is [T, 2, N, H]. The
/// primitives take dense tnc / ldnc tensors; where the caller's x, initial
/// states or y are laid out otherwise (layout 1, one direction of two) a
/// reorder from or into a strided view of the caller's buffer runs before
/// or after, inside the operator's event. Each direction's final states
/// go to buffers of the layer's own, which kRnnState operators copy out.
/// Weights are reordered once, at
/// creation, into the format each primitive chose.

#include <dnnl.h>

#include "backends/onednn/runtime/program_parser.h"
#include "glassbox/core/error.h"
#include "glassbox/runtime/memory_allocator.h"

namespace glassbox::backends::onednn {

/// kRnn's rules against its operand slots and output `out` (the
/// parser's check: ints in range, each constant of the size the layer
/// reads, y of the shape x and the weights imply).
ErrorInfo check_rnn_op(const DnnParsedProgram& program, const DnnParsedOp& op, const DnnSlot& out);

/// kRnnState's: its operand a kRnn's output, `which` a state that cell
/// has, the output that layer's state shape.
ErrorInfo check_rnn_state_op(const DnnParsedProgram& program, const DnnParsedOp& op,
                             const DnnSlot& out);

struct RnnLayer;

/// Creates the primitives of kRnn `op` over buffers fixed for the
/// delegate's life: `buffers[slot]` for its operands (plain), `y` for its
/// output (plain). Builds with the OpenMP thread count in force. On
/// failure `*what` names the step and whatever was made is released.
dnnl_status_t rnn_layer_create(const DnnParsedProgram& program, const DnnParsedOp& op,
                               float* const* buffers, float* y, dnnl_engine_t engine,
                               dnnl_stream_t stream, runtime::MemoryAllocator* memory,
                               RnnLayer** layer, const char** what);

/// Runs every step of every direction and waits for them.
dnnl_status_t rnn_layer_run(const RnnLayer& layer, dnnl_stream_t stream);

/// Copies the last run's final hidden (`which` 0) or cell (1, LSTM) state
/// of each direction into `out`, in the layer's layout (kRnnState).
void rnn_layer_copy_state(const RnnLayer& layer, std::int64_t which, float* out);

/// oneDNN's implementation name of the (first) primitive, for the event's
/// metadata.
const char* rnn_layer_impl(const RnnLayer& layer);

/// Releases the layer's oneDNN objects (its memory is the allocator's).
void rnn_layer_destroy(RnnLayer* layer);

}  // namespace glassbox::backends::onednn
