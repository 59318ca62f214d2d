#!/usr/bin/env python3
"""Unit test of scripts/size_report.py (ctest size_report_test, label
size): the nm table, the entry's differences, merging architectures and the
budget check."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import size_report  # noqa: E402

NM_OUTPUT = """\
0000000000004096 0000000000000120 T glassbox::runtime::Method::execute(glassbox::runtime::Diagnostics*)
0000000000008192 0000000000002048 T glassbox::etdump::ETDumpGen::get_etdump_data()
0000000000010000 0000000000000569 T glassbox::etdump::ETDumpGen::ETDumpGen()
0000000000010000 0000000000000569 T glassbox::etdump::ETDumpGen::ETDumpGen()
0000000000000000 0000000000000004 b tiny
                 U memcpy
"""

SIZES = {"empty_program": 14000, "core_etdump": 50000, "demo_backend": 62000,
         "demo_model": 63000}


class SizeReportTest(unittest.TestCase):
    def test_largest_symbols_first_and_undefined_left_out(self):
        symbols = size_report.parse_nm(NM_OUTPUT, count=3)
        self.assertEqual([s["bytes"] for s in symbols], [2048, 569, 120])
        self.assertEqual(symbols[0]["name"], "glassbox::etdump::ETDumpGen::get_etdump_data()")
        self.assertEqual(symbols[0]["type"], "T")

    def test_aliases_at_one_address_count_once(self):
        symbols = size_report.parse_nm(NM_OUTPUT)
        self.assertEqual(sum(s["bytes"] for s in symbols), 2048 + 569 + 120)

    def test_zero_filled_data_is_left_out(self):
        self.assertNotIn("tiny", [s["name"] for s in size_report.parse_nm(NM_OUTPUT)])

    def test_berkeley_size_is_text_plus_data(self):
        text = ("   text\t   data\t    bss\t    dec\t    hex\tfilename\n"
                "  48237\t   1001\t8585936\t8635174\t 83c326\tsize_core_etdump\n")
        self.assertEqual(size_report.parse_berkeley_size(text), 49238)
        with self.assertRaises(ValueError):
            size_report.parse_berkeley_size("")

    def test_entry_is_what_each_part_adds(self):
        entry = size_report.arch_entry(SIZES, {"core_etdump": 64016}, [], "GNU 12.2.0")
        self.assertEqual(entry["core_etdump"], 50000)
        self.assertEqual(entry["demo_backend"], 12000)
        self.assertEqual(entry["portable_kernels_demo"], 1000)
        self.assertEqual(entry["empty_program"], 14000)
        self.assertEqual(entry["core_etdump_budget"], 64 * 1024)
        self.assertEqual(entry["stripped_file_bytes"], {"core_etdump": 64016})

    def test_merge_keeps_other_architectures(self):
        first = size_report.merge("", "x86_64", {"core_etdump": 1})
        both = json.loads(size_report.merge(first, "aarch64", {"core_etdump": 2}))
        self.assertEqual(both, {"x86_64": {"core_etdump": 1}, "aarch64": {"core_etdump": 2}})
        again = json.loads(size_report.merge(json.dumps(both), "x86_64", {"core_etdump": 3}))
        self.assertEqual(again["x86_64"], {"core_etdump": 3})
        self.assertEqual(again["aarch64"], {"core_etdump": 2})

    def test_merge_starts_afresh_from_a_damaged_report(self):
        self.assertEqual(json.loads(size_report.merge("{not json", "x86_64", {"a": 1})),
                         {"x86_64": {"a": 1}})

    def test_budget(self):
        at_budget = dict(SIZES, core_etdump=64 * 1024)
        self.assertIsNone(size_report.over_budget("x86_64", size_report.arch_entry(at_budget, {}, [], "")))
        over = dict(SIZES, core_etdump=64 * 1024 + 1)
        message = size_report.over_budget("aarch64", size_report.arch_entry(over, {}, [], ""))
        self.assertIn("aarch64", message)
        self.assertIn("65537", message)


if __name__ == "__main__":
    unittest.main()
