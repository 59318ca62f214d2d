#pragma once
/// @file
/// Views over an Inspector: plain rows, ready for a format (formats.h).
///
/// | view      | one row per                                   | order             |
/// |-----------|-----------------------------------------------|-------------------|
/// | events    | event group (ExecuTorch's table)              | mean, descending  |
/// | ops       | source operator, or fused group of them       | mean, descending  |
/// | modules   | module of the hierarchy (whole tree)          | tree, by time     |
/// | types     | source op type (fused rows split by members)  | total, descending |
/// | reconcile | DELEGATE_CALL vs its inner events; operators  | execution order   |
/// |           | vs Method::execute                            |                   |
///
/// The ops view is built from the finest events that were logged, per
/// instruction: a delegate's internal events when it logged any (else its
/// DELEGATE_CALL as one opaque unit), and for a kernel call its
/// OPERATOR_CALL (else its other events, summed). Units whose debug handles
/// overlap are merged (connected components over shared handles), so:
/// - a fused group (one identifier, several ops) is ONE row listing its
///   member ops, never split between them (`shared` says so);
/// - a decomposed op (several identifiers, one op, e.g. tan -> sin, cos,
///   div) is summed back into one row.
/// Per run, a row's sample is the sum of its units' samples in that run.
/// Without an ETRecord every unit is its own row, named from the events.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {

/// The events view: one row per event group, of every block.
std::vector<const EventGroup*> events_view(const Inspector& inspector);

/// One row of the ops view.
struct OpRow {
  /// What the row is called: its ops' names joined with "+"; for a delegate
  /// that logged nothing inside, delegate_call_label(); else the event name
  /// or identifier. A delegate's layout conversion (delegate metadata
  /// "layout: NCHW->NHWC" and the like) is a row of its own, called by that
  /// metadata and the ops it was inserted for, e.g.
  /// "layout: NCHW->NHWC (conv1)".
  std::string label;
  std::vector<std::string> op_names;
  std::vector<std::string> op_types;
  std::vector<DebugHandle> debug_handles;
  /// The innermost module path of each op ("" for none), as op_names.
  std::vector<std::string> module_hierarchy;
  /// "file:line" of each op ("" when unknown), as op_names.
  std::vector<std::string> source_locations;
  bool delegated = false;
  std::string backend;  ///< "" when not delegated.
  /// Identifiers of the delegate events summed into this row, in the order
  /// they were first logged.
  std::vector<aot::DelegateDebugIdentifier> delegate_debug_identifiers;
  std::vector<std::int32_t> instructions;  ///< Sorted, unique.
  /// True when several source ops share this row's time (fusion).
  bool shared = false;
  /// False when no event of the row could be mapped to source ops.
  bool mapped = true;
  /// A DELEGATE_CALL seen only from outside (the delegate logged nothing
  /// inside): its ops are all of the delegate's, not ops it was timed for.
  bool opaque_delegate_call = false;
  /// A layout conversion's delegate metadata ("layout: NCHW->NHWC"), else
  /// empty: the row's ops are those it was inserted for.
  std::string layout_conversion;
  /// What converted the row's times: its delegate events' source (kClock
  /// when none was scaled).
  TimeScaleSource time_scale = TimeScaleSource::kClock;
  std::uint64_t occurrences = 0;
  /// One sample per run (sum over the row's units in that run).
  std::vector<double> samples;
  /// The runs (indices into Inspector::runs()) of the samples, ascending.
  std::vector<std::uint32_t> sample_runs;
  PerfStats stats;
  /// The delegate counters of the row's events, summed over the runs used
  /// (EventGroup::counters of its units); empty when none carried any.
  std::vector<CounterTotal> counters;
  /// The counters of each sample's run (as samples; each by name in the
  /// order first seen): what export's op rows carry. Empty when the
  /// inspector's occurrences carry no counters.
  std::vector<std::vector<CounterTotal>> sample_counters;
  /// The sum of counter `name` (0 when the row has none of it), and its
  /// mean per execution: the sum over the runs the row has samples in.
  std::int64_t counter_sum(std::string_view name) const;
  double counter_mean(std::string_view name) const;
};

/// "DELEGATE_CALL (instruction 3, XnnpackBackend)": how the ops and
/// reconcile views name a delegate call seen only from outside: where it
/// runs and what runs it ("DELEGATE_CALL (instruction 3)" when the backend
/// is unknown: without an ETRecord).
std::string delegate_call_label(InstructionId instruction, std::string_view backend);

/// The ops view, over the "Execute" block.
std::vector<OpRow> ops_view(const Inspector& inspector);

/// One module of the hierarchy.
struct ModuleRow {
  std::string path;         ///< Dotted path; "" is the whole model.
  std::string type;         ///< Module type, "" for the root or when unknown.
  std::uint32_t depth = 0;  ///< 0 for the root.
  /// Sum of the mean times of every ops row with an op in this module
  /// (each row counted once, however many of its ops are inside).
  double total_mean = 0;
  /// The part of total_mean from rows that also hold ops outside this
  /// module (fused across a module boundary): not exclusively this module's.
  double shared_mean = 0;
  std::uint32_t ops = 0;   ///< Source ops inside (with time).
  std::uint32_t rows = 0;  ///< Ops rows counted.
};

/// The modules view: the root, then every module depth first, children by
/// total time descending. Built from the ops view, so a DELEGATE_CALL and its
/// inner events are never both counted.
std::vector<ModuleRow> modules_view(const Inspector& inspector);

/// One op type of the types view.
struct TypeRow {
  /// The type as the source model names it ("conv2d"). For ops rows that
  /// name no source op (unmapped events; everything without an ETRecord)
  /// the event's name; "DELEGATE_CALL" for a delegate seen only from
  /// outside; the metadata ("layout: NCHW->NHWC") for a layout conversion.
  std::string type;
  /// True when `type` is a source op type; false when it is an event's name.
  bool mapped = true;
  /// Source ops of this type with time; for an unmapped type, ops rows.
  std::uint32_t count = 0;
  /// The type's time summed over the executions, and per execution (each
  /// row's mean; a row of n ops gives each of them 1/n of it).
  double total = 0;
  double mean = 0;
  /// The part of `mean` from rows whose ops are of several types or several
  /// ops (fused groups, split evenly between their members).
  double shared_mean = 0;
  /// `mean` as a percentage of the sum of the ops rows' means (the ops
  /// view's percent column adds up to the same whole).
  double percent = 0;
  /// What ran it: delegates' backend names ("unknown delegate" when only an
  /// ETRecord could name it), "portable" for the runtime's kernels; sorted.
  std::vector<std::string> backends;
};

/// The types view: the ops view regrouped by source op type, sorted by
/// total time, descending (then by type). A fused row's time is split
/// evenly between its member ops, so each type gets its members' share
/// (conv2d+relu: half to conv2d, half to relu); an opaque DELEGATE_CALL
/// and a layout conversion are not split: they are types of their own.
std::vector<TypeRow> types_view(const Inspector& inspector);
/// The same from ops rows already made (ops_view's, in any order).
std::vector<TypeRow> types_view(const std::vector<OpRow>& ops);

/// What a reconcile row is.
enum class ReconcileKind : std::uint8_t {
  kDelegateCall,  ///< A DELEGATE_CALL's own time.
  kInnerEvents,   ///< Sum of that delegate's internal events.
  kDelegateGap,   ///< DELEGATE_CALL minus its inner events: unattributed.
  kExecute,       ///< Method::execute.
  kOperatorRows,  ///< Sum of the ops view's rows.
  kFrameworkGap,  ///< Method::execute minus the ops rows: runtime overhead.
};
/// "delegate_call", "inner_events", "delegate_gap", "execute",
/// "operator_rows" or "framework_gap".
std::string_view to_string(ReconcileKind kind);

struct ReconcileRow {
  ReconcileKind kind = ReconcileKind::kDelegateCall;
  std::string label;
  InstructionId instruction;  ///< Unset for the whole-method rows.
  std::string backend;
  /// Per-run values (each run's difference for the gap rows).
  std::vector<double> samples;
  PerfStats stats;
  /// stats.mean as a percentage of the row it is compared against (the
  /// DELEGATE_CALL, or Method::execute); 100 for those rows themselves.
  double percent = 0;
};

/// The reconcile view: for each DELEGATE_CALL its inner sum and gap, then
/// Method::execute against the ops rows. Runs missing one side are left out
/// of that comparison.
std::vector<ReconcileRow> reconcile_view(const Inspector& inspector);

/// One row of a comparison between a baseline and a current ops view.
struct DeltaRow {
  std::string label;
  std::vector<DebugHandle> debug_handles;
  bool in_baseline = false;
  bool in_current = false;
  double baseline_mean = 0;
  double current_mean = 0;
  double delta = 0;          ///< current - baseline.
  double delta_percent = 0;  ///< Relative to baseline; 0 when baseline is 0.
};

/// Per-op deltas: rows are matched by debug handles when both have them,
/// else by label. Sorted by |delta|, descending.
std::vector<DeltaRow> compare_ops(const Inspector& baseline, const Inspector& current);

}  // namespace glassbox::inspector
