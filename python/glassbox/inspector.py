"""ExecuTorch's Inspector on Glassbox's C++ Inspector.

One source of truth: the join of ETDump and ETRecord, the grouping, the
statistics and every view are computed in C++; the tables here are the C++
JSON renderings (`glassbox inspect --format json`, docs/inspector.md) parsed
into pandas DataFrames, and the raw samples are the C++ event groups'.
Python only converts time units; the delegate time scale converter is
handed to the C++ Inspector, so every view honours it."""

import enum
import json
import os
import sys

from ._core import core as _glassbox
from ._files import write_atomically
from .aot import ETRecord
from .errors import InvalidArgumentError


class TimeScale(str, enum.Enum):
    """ExecuTorch's time scales; CYCLES keeps raw ticks."""

    NS = "ns"
    US = "us"
    MS = "ms"
    S = "s"
    CYCLES = "cycles"


_PER_NS = {"ns": 1.0, "us": 1e-3, "ms": 1e-6, "s": 1e-9}


def _scale(value, what):
    try:
        return TimeScale(value.value if isinstance(value, enum.Enum) else str(value).lower())
    except ValueError:
        raise InvalidArgumentError(
            f"{what} must be one of ns, us, ms, s, cycles; got {value!r}") from None


def _ratio(backend, value):
    """(numerator, denominator) nanoseconds per tick; an int n is n/1."""
    pair = (value, 1) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, int) and v > 0 for v in pair):
        raise InvalidArgumentError(
            f"delegate_time_scales[{backend!r}] must be a positive int or a (numerator, "
            f"denominator) pair of positive ints, got {value!r}")
    return pair


class PerfData:
    """Timing of one event over the runs used: the raw samples (one per run,
    in the target time scale) and their statistics."""

    def __init__(self, raw, stats):
        self.raw = list(raw)
        self.p10 = stats["p10"]
        self.p50 = stats["p50"]
        self.p90 = stats["p90"]
        self.avg = stats["avg"]
        self.min = stats["min"]
        self.max = stats["max"]
        self.stddev = stats["stddev"]
        self.count = stats["count"]

    def __repr__(self):
        return f"PerfData(n={self.count}, avg={self.avg:.6g}, p50={self.p50:.6g})"


class Event:
    """One grouped event (block, instruction, delegate identifier, name).

    raw_delegate_debug_metadatas: what the delegate attached to the event,
      as bytes in a list (Glassbox keeps the group's first occurrence's);
      empty when it attached nothing.
    delegate_debug_metadatas / delegate_debug_metadata: the Inspector's
      delegate_metadata_parser applied to that list (ExecuTorch's meaning:
      a dict of columns, or a list), for delegate events that carry
      metadata; the raw list otherwise.
    debug_data: the values logged for this event in the first run of its
      block (NumPy arrays for tensors, Python numbers for scalars), read
      from the debug buffer; empty without one.
    """

    def __init__(self, group, perf_data, metadata_parser=None, debug_data=None):
        self.name = group["name"]
        self.perf_data = perf_data
        self.role = group["role"]
        self.instruction_id = group["instruction"]
        self.delegate_debug_identifier = group["delegate_debug_identifier"]
        self.is_delegated_op = group["delegated"]
        self.delegate_backend_name = group["backend"] or None
        self.debug_handles = group["debug_handles"]
        self.resolved = group["resolved"]
        self.occurrences = group["occurrences"]
        ops = group["source_ops"]
        self.op_types = [op["type"] for op in ops]
        self.op_names = [op["name"] for op in ops]
        self.module_hierarchy = [[path for path, _ in op["module_hierarchy"]] for op in ops]
        self.stack_traces = [op["source_location"] for op in ops]
        metadata = group["delegate_debug_metadata"]
        self.raw_delegate_debug_metadatas = [metadata] if metadata else []
        self.delegate_debug_metadatas = _parsed_metadata(
            self.raw_delegate_debug_metadatas, group, metadata_parser)
        self.debug_data = list(debug_data or [])

    @property
    def delegate_debug_metadata(self):
        """The same as delegate_debug_metadatas (singular, for one group)."""
        return self.delegate_debug_metadatas

    def __repr__(self):
        return f"Event({self.name!r}, {self.perf_data!r})"


def _parsed_metadata(raw, group, parser):
    """The parser sees delegate-internal events only (known from the dump
    alone, with or without an ETRecord), as ExecuTorch's does."""
    if parser is None or group["role"] != "delegate" or not raw:
        return raw
    return parser(raw)


def _event_key(block, instruction, identifier):
    """What an event and the values logged for it share (ExecuTorch's
    signature): the block, the instruction and the delegate identifier."""
    return (block, instruction, identifier)


class EventBlock:
    """The events of one kind of run ("Execute", "Default")."""

    def __init__(self, name, events):
        self.name = name
        self.events = events

    def __repr__(self):
        return f"EventBlock({self.name!r}, {len(self.events)} events)"


def _counter_columns(row):
    """An ops row with its delegate counters as columns, named as the csv
    names them (cycles_sum, cycles_mean); a row without counters as it is."""
    for name, counter in row.pop("counters", {}).items():
        row[f"{name}_sum"] = counter["sum"]
        row[f"{name}_mean"] = counter["mean"]
    return row


def _frame(rows):
    """A DataFrame of `rows` (dicts) in which a column holding None keeps
    its values as they are (ints stay ints, None stays None) instead of
    pandas' float NaN."""
    import pandas as pd

    frame = pd.DataFrame(rows)
    for column in frame.columns:
        values = [row.get(column) for row in rows]
        if any(value is None for value in values):
            frame[column] = pd.Series(values, dtype=object)
    return frame


_TIME_COLUMNS = ["p10", "p50", "p90", "avg", "min", "max", "stddev", "total"]
_JSON_TIME = {"p10": "p10", "p50": "p50", "p90": "p90", "avg": "mean", "min": "min",
              "max": "max", "stddev": "stddev", "total": "total"}

_DISTANCES = {"MSE": "mse", "L1": "l1", "SNR": "snr", "MAX_ABS": "max_abs",
              "COSINE": "cosine"}


class Inspector:
    """Joins an ETDump with its ETRecord (optional) and shows where the time
    went, per event, operator, module; and, with a debug buffer and an
    ETRecord holding reference outputs, where the values went wrong.

    source_time_scale: what the dump's raw timestamps are; None uses the
      dump's tick ratio (ExecuTorch-written dumps have none: ns assumed).
    target_time_scale: the unit of every time this object returns.
    delegate_time_scale_converter: ExecuTorch's f(event_name, raw_time) ->
      time in the target time scale, called by the C++ Inspector with each
      delegate-internal event's raw start and end time (its name is the
      identifier's text for unnamed events); it applies in every view (the
      tables, the DataFrames, find_total_for_module, the Chrome trace) and
      wins over any delegate time scale.
    delegate_time_scales: {backend name: (numerator, denominator)}, the
      nanoseconds per tick of a backend's delegate-internal events (as
      `glassbox inspect --delegate-time-scale BACKEND=NUM/DEN`), for dumps
      that record none; needs an ETRecord to know each event's backend.
    delegate_metadata_parser: f(list of bytes) -> dict or list, called with
      the delegate debug metadata of each delegate event that has some;
      shown as Event.delegate_debug_metadata(s) and, with
      include_delegate_debug_data=True, as DataFrame columns (a dict's keys)
      or one delegate_debug_metadata column (a list).
    debug_buffer_path: the debug buffer (or file) logged values point into;
      with it events carry their values as NumPy arrays (Event.debug_data).
    """

    def __init__(self, etdump_path, etrecord=None, source_time_scale=None,
                 target_time_scale=TimeScale.MS, debug_buffer_path=None,
                 delegate_metadata_parser=None, delegate_time_scale_converter=None,
                 skip_first_runs=0, allow_fingerprint_mismatch=False,
                 delegate_time_scales=None):
        if isinstance(etrecord, (str, os.PathLike)):
            etrecord = ETRecord.load(etrecord)
        elif etrecord is not None and not isinstance(etrecord, ETRecord):
            raise TypeError("etrecord: expected a path or a glassbox.ETRecord, got "
                            f"{type(etrecord).__name__}")
        record = etrecord._record if etrecord is not None else None
        time_unit = None
        if source_time_scale is not None:
            source = _scale(source_time_scale, "source_time_scale")
            if source is TimeScale.S:
                raise InvalidArgumentError("source_time_scale s is not supported: use ns, us, "
                                           "ms or cycles")
            time_unit = "ticks" if source is TimeScale.CYCLES else source.value
        self._target = _scale(target_time_scale, "target_time_scale")
        self._etdump_path = os.fspath(etdump_path)
        self._cpp = _glassbox.Inspector(
            self._etdump_path, record,
            None if debug_buffer_path is None else os.fspath(debug_buffer_path), time_unit,
            int(skip_first_runs), bool(allow_fingerprint_mismatch),
            delegate_time_scale_converter, 1.0 / _PER_NS.get(self._target.value, 1.0),
            {str(k): _ratio(k, v) for k, v in (delegate_time_scales or {}).items()})
        self._metadata_parser = delegate_metadata_parser
        self._groups = self._cpp.groups()
        self._debug_data = {}
        for logged in self._cpp.debug_events():
            key = _event_key(logged["block"], logged["instruction"],
                             logged["delegate_debug_identifier"])
            self._debug_data.setdefault(key, []).append(logged["value"])

    # Units -----------------------------------------------------------------

    @property
    def time_unit(self):
        """The unit of the times this object returns ("ms", or "ticks" when
        the source is raw cycles)."""
        return "ticks" if self._cpp.time_unit == "ticks" else self._target.value

    def _factor(self):
        return 1.0 if self._cpp.time_unit == "ticks" else _PER_NS[self._target.value]

    # ExecuTorch's API ------------------------------------------------------

    @property
    def event_blocks(self):
        blocks = {}
        factor = self._factor()
        for group in self._groups:
            scaled = {k: (v * factor if k != "count" else v) for k, v in group["stats"].items()}
            perf = PerfData([s * factor for s in group["samples"]], scaled)
            blocks.setdefault(group["block"], []).append(
                Event(group, perf, self._metadata_parser, self._group_debug_data(group)))
        return [EventBlock(name, events) for name, events in blocks.items()]

    def _group_debug_data(self, group):
        if group["instruction"] is None and group["delegate_debug_identifier"] is None:
            return []  # framework steps (Method::execute) log no values of their own
        return self._debug_data.get(_event_key(group["block"], group["instruction"],
                                               group["delegate_debug_identifier"]), [])

    def _json(self, view):
        return json.loads(self._cpp.render(view, "json"))

    def to_dataframe(self, include_units=False, include_delegate_debug_data=False):
        """One row per event group (the events view), ExecuTorch's columns:
        event_block_name, event_name, raw, p10, p50, p90, avg, min, max, ...
        Statistics equal `glassbox inspect --view events --format json`
        converted to the target time scale. debug_data holds each event's
        logged values (see Event.debug_data). include_delegate_debug_data
        adds the parsed delegate debug metadata: a dict's keys as columns, a
        list as one delegate_debug_metadata column."""
        by_key = {(g["block"], g["name"], g["instruction"], g["delegate_debug_identifier"]): g
                  for g in self._groups}
        factor = self._factor()
        suffix = "ticks" if self._cpp.time_unit == "ticks" else "ns"
        rows = []
        for row in self._json("events")["rows"]:
            key = (row["block"], row["name"], row["instruction"],
                   row["delegate_debug_identifier"])
            group = by_key[key]
            out = {"event_block_name": row["block"], "event_name": row["name"],
                   "raw": [s * factor for s in group["samples"]]}
            for column in _TIME_COLUMNS:
                out[column] = row[f"{_JSON_TIME[column]}_{suffix}"] * factor
            out.update({
                "count": row["count"], "occurrences": row["occurrences"],
                "op_types": row["op_types"], "op_names": row["op_names"],
                "delegate_debug_identifier": row["delegate_debug_identifier"],
                "module_hierarchy": row["module_hierarchy"],
                "is_delegated_op": row["delegated"],
                "delegate_backend_name": row["backend"], "role": row["role"],
                "instruction_id": row["instruction"], "debug_handles": row["debug_handles"],
                "resolved": row["resolved"], "time_scale": row["time_scale"],
                "debug_data": self._group_debug_data(group)})
            if include_delegate_debug_data:
                out.update(self._metadata_columns(group))
            rows.append(out)
        frame = _frame(rows)
        if include_units and not frame.empty:
            frame = frame.rename(columns={c: f"{c} ({self.time_unit})"
                                          for c in ["raw"] + _TIME_COLUMNS})
        return frame

    def _metadata_columns(self, group):
        raw = [group["delegate_debug_metadata"]] if group["delegate_debug_metadata"] else []
        parsed = _parsed_metadata(raw, group, self._metadata_parser)
        if isinstance(parsed, dict):
            return parsed
        if parsed:
            return {"delegate_debug_metadata": parsed}
        return {}

    def print_data_tabular(self, file=None, include_units=True,
                           include_delegate_debug_data=False, view="events"):
        """Prints a view as `glassbox inspect --format table` does (units in
        the title; the C++ table chooses ns, us or ms per table)."""
        del include_units, include_delegate_debug_data
        print(self._cpp.render(view, "table"), end="", file=file or sys.stdout)

    def save_data_to_tsv(self, file_path, view="events"):
        """Writes a view as `glassbox inspect --format tsv` (times in ns)."""
        write_atomically(file_path, self._cpp.render(view, "tsv"))

    def find_total_for_module(self, module_name):
        """The mean time per execution spent in `module_name` (a dotted
        module path; "" for the whole model), from the modules view; 0.0
        when no event maps to it."""
        suffix = "ticks" if self._cpp.time_unit == "ticks" else "ns"
        for row in self._json("modules")["rows"]:
            if row["module"] == module_name:
                return row[f"total_mean_{suffix}"] * self._factor()
        return 0.0

    def calculate_numeric_gap(self, distance="MSE", threshold=None, execution=0):
        """Per compared output, the gap between the run's value (debug
        buffer) and the ETRecord's reference, as a DataFrame: aot_ops,
        runtime_ops, gap, exceeds, first_failure, ... `distance` is MSE, L1,
        SNR, MAX_ABS or COSINE. SQNR (int8 models) gives the quant view's
        rows instead: per quantized op, `gap` is sqnr_db (float reference
        vs the run) beside quant_sqnr_db, kernel_sqnr_db, isolated_sqnr_db
        and the rest, worst isolated loss first (docs/quantization.md)."""
        if str(distance).upper() == "SQNR":
            return self._quant_gap(int(execution))
        metric = _DISTANCES.get(str(distance).upper())
        if metric is None:
            raise InvalidArgumentError(
                f"distance must be one of {', '.join(_DISTANCES)} or SQNR, got {distance!r}")
        report = json.loads(self._cpp.render_numeric(metric, metric, threshold, int(execution),
                                                     "json"))
        rows = []
        for row in report["rows"]:
            gap = row.get("metrics", {}).get(metric)
            rows.append({
                "aot_ops": row["op_names"], "aot_op_types": row["op_types"],
                "runtime_ops": row["identifiers"] or [row["kind"]], "kind": row["kind"],
                "backend": row["backend"], "instruction_id": row["instruction"],
                "gap": float(gap) if gap is not None else float("nan"),
                "exceeds": row["exceeds"], "first_failure": row["first_failure"],
                "status": row["status"], "note": row["note"]})
        return _frame(rows)

    # Beyond ExecuTorch -----------------------------------------------------

    def view_dataframe(self, view):
        """The ops, modules, reconcile, types (or events) view as a
        DataFrame, with the JSON's columns (times in ns, or ticks); "types"
        is the time per source op type (`glassbox inspect --view types`);
        "quant" gives the quant view of an int8 model (`glassbox inspect
        --view quant`)."""
        if view == "quant":
            return _frame(self._quant_rows(0))
        rows = self._json(view)["rows"]
        if view == "ops":
            rows = [_counter_columns(row) for row in rows]
        return _frame(rows)

    def _quant_rows(self, execution):
        return json.loads(self._cpp.render_quant(execution, "json"))["rows"]

    def _quant_gap(self, execution):
        rows = []
        for row in self._quant_rows(execution):
            gap = row["sqnr_db"]
            rows.append(dict(row, aot_ops=row["op_names"],
                             gap=float(gap) if isinstance(gap, (int, float)) else float("nan")))
        return _frame(rows)

    def diagnostics(self):
        return self._json("events")["diagnostics"]

    def diff(self, baseline):
        """Per-op deltas against `baseline` (an Inspector of an earlier run
        of the same program), as `glassbox inspect --baseline`."""
        return _frame(json.loads(self._cpp.render_comparison(baseline._cpp, "json"))["rows"])

    def to_chrome_trace(self, path=None):
        """The Chrome Trace Event JSON (Perfetto UI); written to `path` if
        given, else returned."""
        text = self._cpp.render("events", "chrome")
        if path is None:
            return text
        write_atomically(path, text)
        return None
