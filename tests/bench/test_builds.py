"""hdp-bench builds' statistics, without a run: the sign test, and each
figure judged from given rounds (paired ratio, what NEW adds over off's
change, the verdict). Run by meson (TAP) with the source tree as argument
1; python3 -m unittest works too.
"""
import json
import os
import sys
import tempfile
import unittest

SOURCE = sys.argv[1] if len(sys.argv) > 1 and os.path.isdir(sys.argv[1]) else \
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(SOURCE, "bench"))

import bench_out  # noqa: E402
from hdpbench import builds  # noqa: E402


def rounds(off, prof, n):
    """@n rounds of figures: off and one profile at 60 bytes."""
    return [{("off", 60): off[i % len(off)], ("p", 60): prof[i % len(prof)]} for i in range(n)]


class SignTest(unittest.TestCase):
    def test_p_of_rounds_all_one_way_and_split(self):
        self.assertEqual(builds.sign_test(6, 0), 2 / 64)
        self.assertEqual(builds.sign_test(0, 8), 2 / 256)
        self.assertEqual(builds.sign_test(5, 0), 2 / 32)
        self.assertEqual(builds.sign_test(4, 4), 1.0)
        self.assertEqual(builds.sign_test(0, 0), 1.0)
        # 7 of 8: 2 * (1 + 8) / 256
        self.assertAlmostEqual(builds.sign_test(7, 1), 18 / 256)


class Judge(unittest.TestCase):
    def test_faster_in_every_round_is_faster(self):
        old = rounds([20.0, 22.0], [50.0, 55.0], 8)
        new = rounds([20.0, 22.0], [45.0, 50.0], 8)
        p = {(r["profile"], r["size"]): r for r in builds.judge(old, new)}[("p", 60)]
        self.assertEqual((p["faster_rounds"], p["slower_rounds"]), (8, 0))
        self.assertEqual(p["verdict"], "faster")
        self.assertEqual(p["added_ns"], -5.0)
        self.assertAlmostEqual(p["paired"]["median"], (45 / 50 + 50 / 55) / 2)
        self.assertEqual(p["base"]["median"], 52.5)

    def test_slower_and_no_difference(self):
        old = rounds([20.0], [50.0], 8)
        slower = builds.judge(old, rounds([20.0], [51.0], 8))
        self.assertEqual(slower[1]["verdict"], "slower")
        mixed = builds.judge(old, rounds([20.0], [49.0, 51.0], 8))
        self.assertEqual(mixed[1]["verdict"], "no difference shown")
        self.assertEqual(mixed[1]["p"], 1.0)
        # off against itself: nothing added, whatever its own change.
        self.assertEqual(mixed[0]["added_ns"], 0)

    def test_what_new_adds_is_net_of_offs_own_change(self):
        # The machine 10 % slower for NEW: off and the profile alike.
        old = rounds([20.0], [40.0], 8)
        new = rounds([22.0], [44.0], 8)
        p = builds.judge(old, new)[1]
        self.assertAlmostEqual(p["added_ns"], 2.0)
        self.assertEqual(p["verdict"], "slower")


    def test_a_verdict_is_corrected_for_the_rows_judged_at_once(self):
        # Nine rows (off, default, strict at three sizes), NEW faster in
        # every round: six rounds give each p = 1/32, which over nine rows
        # is no verdict; nine rounds give 1/256, times nine under 0.05.
        def nine(n, ns):
            return [{(p, z): ns * (1 + k) + z for k, p in enumerate(("off", "default", "strict"))
                     for z in (60, 1500, 9000)} for _ in range(n)]
        for n, want in ((6, "no difference shown"), (9, "faster")):
            rows = builds.judge(nine(n, 20.0), nine(n, 19.0))
            self.assertEqual({r["verdict"] for r in rows}, {want}, n)
            self.assertTrue(all(r["p_holm"] >= r["p"] for r in rows))


class Holm(unittest.TestCase):
    def test_each_p_scaled_by_its_rank_and_kept_in_order(self):
        got = builds.holm([0.01, 0.04, 0.03])
        for g, want in zip(got, [0.03, 0.06, 0.06]):
            self.assertAlmostEqual(g, want)
        self.assertEqual(builds.holm([0.5, 0.9]), [1.0, 1.0])
        self.assertEqual(builds.holm([]), [])


class RoundResults(unittest.TestCase):
    """A round's results.json is read in --out, which may be another
    user's directory: whatever stands at the name, it is read only if it
    is a regular file reached without a link, and never waited on."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        self.fd = bench_out.open_dir(self.d)
        os.mkdir(os.path.join(self.d, "round01-old"))
        self.path = os.path.join(self.d, "round01-old", "results.json")

    def tearDown(self):
        os.close(self.fd)
        self.tmp.cleanup()

    def refused(self, name="round01-old"):
        # A FIFO waited on would hang here: meson's timeout fails the test.
        with self.assertRaises(builds.MicroFailed) as e:
            builds.read_results(self.fd, name)
        self.assertIn(f"{name}/results.json", str(e.exception))

    def test_micros_results_are_read(self):
        with open(self.path, "w") as f:
            json.dump({"runs": [{"profile": "off", "size": 60, "ns_per_pkt": {"median": 20.5}},
                                {"profile": "default", "ns_per_pkt": {"median": 40.0}}]}, f)
        figures, res = builds.read_results(self.fd, "round01-old")
        self.assertEqual(figures, {("off", 60): 20.5, ("default", 60): 40.0})
        self.assertEqual(len(res["runs"]), 2)

    def test_a_fifo_is_not_waited_on(self):
        os.mkfifo(self.path)
        self.refused()

    def test_a_link_at_the_file_or_the_round_is_not_followed(self):
        secret = os.path.join(self.d, "secret.json")
        with open(secret, "w") as f:
            json.dump({"runs": []}, f)
        os.symlink(secret, self.path)
        self.refused()
        os.symlink(os.path.join(self.d, "round01-old"), os.path.join(self.d, "round02-old"))
        self.refused("round02-old")

    def test_missing_or_not_micros_results(self):
        self.refused()
        for text in ("not json", "[]", '{"runs": [{"profile": "off"}]}'):
            with open(self.path, "w") as f:
                f.write(text)
            self.refused()


if __name__ == "__main__":
    argv = [sys.argv[0]] + [a for a in sys.argv[2:]]
    unittest.main(argv=argv, verbosity=2)
