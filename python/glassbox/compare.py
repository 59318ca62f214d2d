"""Two runs of one source model through different programs, per source op:
what `glassbox compare` prints (docs/inspector.md, "Comparing two
programs")."""

import json
import os

from ._core import core as _glassbox


def compare(a_etdump, a_etrecord, b_etdump, b_etrecord, skip_first_runs=0):
    """Joins run A (an ETDump and its program's ETRecord) with run B of the
    same source model lowered another way (another backend, int8 vs its
    float twin), per source op: by name when the two ETRecords' graphs name
    their ops alike, else by structure.

    Returns the fields of `glassbox compare --format json` as a dict:
    "join" ("names" or "structure"), "a" and "b" ({"name", "total_ns"}),
    "ratio" (total B / A), "rows" (ops both runs timed, largest |B - A|
    first: op_names, op_names_b, op_types, module, backend_a, backend_b,
    mean_ns_a, mean_ns_b, delta_ns, ratio), "only_a" and "only_b" (the same
    fields, one time None), "by_module" and "by_type" (module or op_type,
    ops, mean_ns_a, mean_ns_b, delta_ns, ratio). Raises as the command
    fails: MismatchError for an ETDump given with another program's
    ETRecord, InvalidArgumentError for two unrelated models."""
    text = _glassbox.compare_runs(os.fspath(a_etdump), os.fspath(a_etrecord),
                                  os.fspath(b_etdump), os.fspath(b_etrecord),
                                  int(skip_first_runs), "json")
    return json.loads(text)
