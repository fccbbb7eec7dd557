"""The kernel lab's own parts, without a kernel: the initramfs format, the
guest's result lines, the plans, the figures and the CI checks made of
them, the cache key and the command line. Run by meson (TAP) with the
source tree as argument 1; python3 -m unittest works too.
"""
import gzip
import os
import shlex
import sys
import tempfile
import unittest

SOURCE = sys.argv[1] if len(sys.argv) > 1 and os.path.isdir(sys.argv[1]) else \
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(SOURCE, "bench"))

from hdpbench import contenders  # noqa: E402
from hdpbench.kernel import cli, cpio, experiments as ex, kernels, qemu, report  # noqa: E402
from hdpbench.kernel import guest_arm64, report_arm64  # noqa: E402
from hdpbench.kernel.errors import LabError  # noqa: E402


def read_newc(data):
    """name -> (mode, contents) from a newc archive, as the kernel reads it."""
    out, pos = {}, 0
    while True:
        assert data[pos:pos + 6] == b"070701", f"bad magic at {pos}"
        fields = [int(data[pos + 6 + 8 * i:pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        pos += 110
        name = data[pos:pos + namesize - 1].decode()
        pos += namesize
        pos += (4 - pos % 4) % 4
        body = data[pos:pos + size]
        pos += size
        pos += (4 - pos % 4) % 4
        if name == "TRAILER!!!":
            return out, pos
        out[name] = (mode, body)


class Cpio(unittest.TestCase):
    def test_entries_read_back_as_written(self):
        a = cpio.Archive()
        a.file("usr/bin/tool", b"\x7fELF...", 0o755)
        a.symlink("bin/sh", "busybox")
        a.file("lab/plan", b"probe\n")
        with tempfile.TemporaryDirectory() as d:
            a.write(os.path.join(d, "x.gz"))
            entries, _ = read_newc(gzip.open(os.path.join(d, "x.gz")).read())
        self.assertEqual(entries["usr/bin/tool"], (0o100755, b"\x7fELF..."))
        self.assertEqual(entries["bin/sh"], (0o120777, b"busybox"))
        self.assertEqual(entries["lab/plan"][1], b"probe\n")
        # every directory before what it holds, root-owned by construction
        names = list(entries)
        self.assertLess(names.index("usr"), names.index("usr/bin"))
        self.assertLess(names.index("usr/bin"), names.index("usr/bin/tool"))

    def test_a_name_is_written_once(self):
        a = cpio.Archive()
        a.file("x", b"first")
        a.file("x", b"second")
        with tempfile.TemporaryDirectory() as d:
            a.write(os.path.join(d, "x.gz"))
            entries, _ = read_newc(gzip.open(os.path.join(d, "x.gz")).read())
        self.assertEqual(entries["x"][1], b"first")


class Results(unittest.TestCase):
    def test_a_result_line_with_quotes_and_counters(self):
        r = qemu.parse_result('R step=verify label=hdp-default status=0 said="verdict: ok" '
                              'before: t=1.5 uc_checks=3 after: t=2 uc_checks=9')
        self.assertEqual(r["step"], "verify")
        self.assertEqual(r["said"], "verdict: ok")
        self.assertEqual(r["before"], {"t": 1.5, "uc_checks": 3})
        self.assertEqual(ex.delta(r, "uc_checks"), 6)

    def test_a_counter_the_kernel_lacks_gives_no_figure(self):
        r = qemu.parse_result("R step=x before: uc_checks=-1 after: uc_checks=-1")
        self.assertIsNone(ex.delta(r, "uc_checks"))


def flow(label, size, n, t, vm, checks, knob=None):
    return {"step": "flow", "label": label, "size": size, "sink_t0": 0.0, "sink_n0": 0,
            "sink_t1": t, "sink_n1": n,
            "before": {"uc_checks_cpu1": 0, "uc_vmalloc_cpu1": 0, "uc_bypassed_cpu1": 0},
            "after": {"uc_checks_cpu1": checks, "uc_vmalloc_cpu1": vm,
                      "uc_bypassed_cpu1": 0}}


def netlink(label, mode, msgs, seconds, vm, bypassed):
    return {"step": "netlink", "label": label, "mode": mode, "messages": msgs, "bytes": msgs * 64,
            "seconds": seconds, "before": {"uc_vmalloc": 0, "uc_bypassed": 0},
            "after": {"uc_vmalloc": vm, "uc_bypassed": bypassed}}


def doc_of(boots, sizes=(60,)):
    return {"accel": "tcg", "accel_why": "tcg (test)", "kernels": {},
            "settings": {"sizes": list(sizes)}, "boots": boots}


def boot(experiment, label, results, kernel="6.1", cpus=2, rnd=1):
    return {"experiment": experiment, "kernel": kernel, "label": label, "cpus": cpus,
            "round": rnd, "ended": True, "results": results + [{"step": "end"}]}


class Figures(unittest.TestCase):
    def test_the_knob_ratio_and_lookups_per_packet(self):
        d = doc_of([boot("seed000", "usercopy on, 2 vCPU", [
            flow("kernel-socket/knob-N", 60, 1000, 1.0, 0, 2000),
            flow("kernel-socket/knob-Y", 60, 1250, 1.0, 0, 2000),
            netlink("knob-N", "peek", 500, 1.0, 500, 0),
            netlink("knob-Y", "peek", 1000, 1.0, 0, 1000)])])
        rows = report.seed000_table(d)
        sock = rows[0]
        self.assertAlmostEqual(sock["on_over_bypassed"], 0.8)
        self.assertEqual(sock["vmalloc_checks_per_packet"], 0)
        self.assertAlmostEqual(sock["checks_per_packet"], 2.0)
        peek = [r for r in rows if "MSG_PEEK" in r["path"]][0]
        self.assertAlmostEqual(peek["on_over_bypassed"], 0.5)
        self.assertAlmostEqual(peek["vmalloc_checks_per_packet"], 1.0)

    def test_seed001_ratios_are_to_the_off_boot_of_the_same_round(self):
        def hb(sys_ticks, wiped, skipped):
            return {"step": "hackbench", "label": "run", "time": 1.0,
                    "before": {"cpu_sys": 0, "ie_alloc_wiped": 0, "ie_alloc_skipped": 0},
                    "after": {"cpu_sys": sys_ticks, "ie_alloc_wiped": wiped,
                              "ie_alloc_skipped": skipped}}
        boots = []
        for rnd, scale in ((1, 1.0), (2, 2.0)):   # round 2 runs on a machine twice as slow
            boots.append(boot("seed001", "off", [hb(100 * scale, 0, 0)], rnd=rnd))
            boots.append(boot("seed001", "init_on_alloc", [hb(110 * scale, 50, 0)], rnd=rnd))
        rows = {r["boot"]: r for r in report.seed001_table(doc_of(boots))}
        self.assertAlmostEqual(rows["init_on_alloc"]["sys_over_off"], 1.1)
        self.assertEqual(rows["init_on_alloc"]["alloc_wiped_per_run"], 50)

    def test_the_ci_checks_pass_on_a_good_boot_and_name_a_bad_one(self):
        good = [
            {"step": "probe", "knob": "N", "attr": "yes", "af_unix": "Y",
             "excluded": "skbuff_head_cache,mm_struct"},
            {"step": "knob", "now": "Y"}, netlink("knob-Y", "peek", 100, 1.0, 0, 100),
            {"step": "knob", "now": "N"}, netlink("knob-N", "peek", 100, 1.0, 200, 0),
            flow("kernel-socket/knob-N", 60, 1000, 1.0, 0, 2000),
            {"step": "hackbench", "time": 0.5, "before": {"ie_alloc_wiped": 0,
                                                          "ie_alloc_skipped": 0},
             "after": {"ie_alloc_wiped": 10, "ie_alloc_skipped": 5}},
            {"step": "verify", "status": 0}]
        checks = report.ci_checks(doc_of([boot("ci", "CI", good)]))
        self.assertTrue(all(c["ok"] for c in checks), [c for c in checks if not c["ok"]])
        bad = [dict(r) for r in good]
        bad[0]["excluded"] = "mm_struct"
        bad[-1]["status"] = 1
        failed = [c["name"] for c in report.ci_checks(doc_of([boot("ci", "CI", bad)]))
                  if not c["ok"]]
        self.assertEqual(len(failed), 2, failed)


def loopback(proto, msgs, seconds, tagged, skipped):
    return {"step": "loopback", "label": proto, "proto": proto, "messages": msgs,
            "bytes": msgs * 100, "seconds": seconds,
            "before": {"kl_tagged": 0, "kl_skipped": 0},
            "after": {"kl_tagged": tagged, "kl_skipped": skipped}}


def arm64_boot(experiment, label, results, rnd=1):
    b = boot(experiment, label, results, kernel=ex.ARM64, rnd=rnd)
    b["arch"] = "arm64"
    return b


class Seed002(unittest.TestCase):
    def test_ratios_to_kasan_off_of_the_same_round_and_counts_a_message(self):
        boots = []
        for rnd, scale in ((1, 1.0), (2, 0.5)):   # round 2 on a machine twice as slow
            boots.append(arm64_boot("seed002", "kasan off", [
                loopback("tcp", int(1000 * scale), 1.0, 0, 0),
                loopback("udp", int(1000 * scale), 1.0, 0, 0)], rnd))
            boots.append(arm64_boot("seed002", "sync, sample 10", [
                loopback("tcp", int(800 * scale), 1.0, int(80 * scale), int(720 * scale)),
                loopback("udp", int(500 * scale), 1.0, int(50 * scale), int(450 * scale))], rnd))
        rows = {r["boot"]: r for r in report_arm64.seed002_table(doc_of(boots))}
        self.assertAlmostEqual(rows["sync, sample 10"]["tcp_over_off"], 0.8)
        self.assertAlmostEqual(rows["sync, sample 10"]["udp_over_off"], 0.5)
        self.assertAlmostEqual(rows["sync, sample 10"]["tagged_per_message"], 0.1)
        self.assertAlmostEqual(rows["sync, sample 10"]["skipped_per_message"], 0.9)

    def test_the_arm64_ci_checks_pass_on_a_good_boot_and_name_a_bad_one(self):
        lab = "enabled 1 mode 0 sample 10 sample_order 3 tagged {} skipped {}"
        good = [
            {"step": "kasan", "said": "kasan: KernelAddressSanitizer initialized (hw-tags, "
             "mode=sync, vmalloc=on, stacktrace=on)", "mte": "MTE: enabled in synchronous mode",
             "reports": 0, "lab": lab.format(3, 30)},
            {"step": "mteprobe", "granules": 1024, "wrong": 0},
            loopback("tcp", 100, 1.0, 10, 90),
            {"step": "tap", "label": "test_fwd_mte", "mode": "sync", "status": 0, "ok": 9,
             "not_ok": 0},
            {"step": "provoke", "mode": "sync", "cases": 44, "caught": 44, "missed": ""},
            {"step": "switch", "label": "soft-to-mte-sync", "status": 0, "alive": 1, "set": 0,
             "back": 1, "tags": "tags mte, checked sync"},
            {"step": "switch", "label": "off-to-mte-refused", "status": 0, "alive": 1, "set": 1,
             "back": 1, "answer": "pool 'umem': tag=mte: its memory is on 2048 kB hugepages, ...",
             "tags": "tags off, checked sync"},
            {"step": "verify", "label": "mte-1-sync", "count": 10, "status": 0, "back": 1},
            {"step": "kasan", "reports": 0, "lab": lab.format(13, 120)}]
        checks = report.ci_checks(doc_of([arm64_boot("ci", "CI, arm64", good)]))
        self.assertTrue(all(c["ok"] for c in checks), [c for c in checks if not c["ok"]])
        bad = [dict(r) for r in good]
        bad[1]["wrong"] = 512            # QEMU 7.2: tags per page half
        bad[4]["caught"] = 43
        bad[-1]["lab"] = lab.format(130, 20)   # not 1 in 10
        # the mode in force assumed, not probed: a fork of the pinned UMEM failed
        bad[6]["answer"] = ("error: tag_check = sync: the probe of the mode in force could "
                            "not start: clone: Cannot allocate memory; assuming sync "
                            + good[6]["answer"])
        bad[7]["back"] = 0              # a frame not given back when hdp-fwd stopped
        failed = [c["name"] for c in report.ci_checks(doc_of([arm64_boot("ci", "CI", bad)]))
                  if not c["ok"]]
        self.assertEqual(len(failed), 5, failed)

    def test_a_check_run_in_every_round_is_one_row_failing_if_any_round_failed(self):
        rows = [{"what": "test_mte (sync)", "ok": True, "detail": "20 ok"},
                {"what": "test_mte (sync)", "ok": False, "detail": "19 ok, 1 not ok"},
                {"what": "test_mte (sync)", "ok": True, "detail": "20 ok"},
                {"what": "test_mte (async)", "ok": True, "detail": "20 ok"}]
        merged = report_arm64._over_rounds(rows)
        self.assertEqual(len(merged), 2)
        self.assertFalse(merged[0]["ok"])
        self.assertEqual(merged[0]["detail"], "2 of 3 rounds ok; 19 ok, 1 not ok")
        self.assertEqual(merged[1], rows[3])


class Plans(unittest.TestCase):
    def test_a_contender_command_survives_the_guests_shell(self):
        line = ex._flow("hdp-strict", 60, 4, "hdp-strict")
        words = shlex.split(line)
        self.assertEqual(words[:4], ["flow", "hdp-strict", "60", "4"])
        self.assertEqual(words[4:], contenders.command("hdp-strict", ex.GUEST_CONFIGS))

    def test_every_planned_contender_is_known(self):
        for spec in ex.seed000_boots(ex.Settings(), ("6.1", "6.12")) + \
                ex.seed001_boots(ex.Settings(), ("6.1",)) + ex.ci_boots(("6.1",)):
            for line in spec.plan:
                step = line.split()[0]
                self.assertIn(step, ("probe", "knob", "flow", "verify", "hackbench", "netlink"))
                if step in ("flow", "verify"):
                    self.assertTrue(contenders.known(line.split()[1].split("/")[0]), line)

    def test_the_arm64_plans_run_known_steps_and_contenders(self):
        s = ex.Settings()
        steps = ("probe", "kasan", "mteprobe", "loopback", "tap", "provoke", "verify", "flow",
                 "mtu", "switch")
        for spec in ex.seed002_boots(s, (ex.ARM64,)) + ex.mte_boots(s, (ex.ARM64,)) + \
                ex.ci_boots((ex.ARM64,)):
            self.assertEqual(spec.kernel, ex.ARM64)
            for line in spec.plan:
                words = shlex.split(line)
                self.assertIn(words[0], steps, line)
                if words[0] in ("flow", "verify", "switch"):
                    cmd = words[{"flow": 4, "verify": 4, "switch": 6}[words[0]]:]
                    if cmd[0] == "env":    # a tag check mode for hdp-fwd's process
                        self.assertRegex(cmd[1], r"^HDP_TAG_CHECK=(sync|async|asymm)$")
                        cmd = cmd[2:]
                    self.assertIn(cmd[0], ("hdp-fwd", "hdp-sockfwd"), line)
        self.assertEqual(ex.seed002_boots(s, (ex.ARM64,))[0].append, "kasan=off")

    def test_a_switch_runs_hdp_fwd_with_its_control_socket(self):
        words = shlex.split(ex._under_mode(ex._switch("x", 10, "hdp-tag-1", "umem", "tag", "mte"),
                                           "async"))
        self.assertEqual(words[:8], ["switch", "x", "10", "umem", "tag", "mte", "env",
                                     "HDP_TAG_CHECK=async"])
        self.assertEqual(words[words.index("--ctl") + 1], ex.CTL_SOCKET)

    def test_seed001_has_its_off_boot_first_and_6_12_has_no_knob(self):
        boots = ex.seed001_boots(ex.Settings(), ("6.1",))
        self.assertEqual(boots[0].label, "off")
        for spec in ex.seed000_boots(ex.Settings(), ("6.12",)):
            self.assertFalse(any(l.startswith("knob") for l in spec.plan))


class GuestLibraries(unittest.TestCase):
    """The arm64 image takes what programs' headers name, as root."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.saved = guest_arm64.GUEST_ROOT
        guest_arm64.GUEST_ROOT = self.tmp.name
        self.libdir = os.path.join(self.tmp.name, "root", guest_arm64.LIB_DIRS[0])
        os.makedirs(self.libdir)

    def tearDown(self):
        guest_arm64.GUEST_ROOT = self.saved
        self.tmp.cleanup()

    def lib(self, name, uid):
        path = os.path.join(self.libdir, name)
        with open(path, "w") as f:
            f.write("x")
        if os.geteuid() == 0:
            os.chown(path, uid, -1)
        return path

    def test_a_needed_name_that_is_a_path_is_refused(self):
        for name in ("../../../../etc/shadow", "/etc/shadow", "..", ""):
            with self.assertRaises(LabError, msg=name) as e:
                guest_arm64._find(name, "hdp-fwd")
            self.assertIn("not a file name", str(e.exception))

    def test_a_library_another_user_owns_is_refused(self):
        self.lib("libplanted.so.1", 65534)
        with self.assertRaises(LabError) as e:
            guest_arm64._find("libplanted.so.1", "hdp-fwd")
        self.assertIn("not root's", str(e.exception))

    @unittest.skipUnless(os.geteuid() == 0, "a root-owned file needs root to make")
    def test_roots_library_in_the_guest_root_is_found(self):
        path = self.lib("libhdpguest.so.1", 0)
        self.assertEqual(guest_arm64._find("libhdpguest.so.1", "hdp-fwd"), path)


class Cache(unittest.TestCase):
    def test_the_key_follows_the_patches_and_the_config(self):
        with tempfile.TemporaryDirectory() as lab:
            os.makedirs(os.path.join(lab, "patches", "v"))
            os.makedirs(os.path.join(lab, "config"))
            for name, text in (("patches/v/a.patch", "one"), ("config/c.config", "CONFIG_X=y")):
                with open(os.path.join(lab, name), "w") as f:
                    f.write(text)
            k = kernels.Kernel("v", "linux-source-none", "/nonexistent.tar.xz",
                               ("v/a.patch",), ("c.config",), "test")
            first = kernels.cache_key(k, lab)
            self.assertEqual(first, kernels.cache_key(k, lab))
            with open(os.path.join(lab, "patches/v/a.patch"), "w") as f:
                f.write("two")
            self.assertNotEqual(first, kernels.cache_key(k, lab))

    def test_an_arm64_kernel_is_keyed_apart_and_built_with_the_cross_compiler(self):
        with tempfile.TemporaryDirectory() as lab:
            os.makedirs(os.path.join(lab, "config"))
            with open(os.path.join(lab, "config", "c.config"), "w") as f:
                f.write("CONFIG_X=y")
            x86 = kernels.Kernel("v", "linux-source-none", "/none.tar.xz", (), ("c.config",), "t")
            arm = kernels.Kernel("v", "linux-source-none", "/none.tar.xz", (), ("c.config",), "t",
                                 arch="arm64")
            self.assertNotEqual(kernels.cache_key(x86, lab), kernels.cache_key(arm, lab))
        self.assertEqual(arm.cross, ["ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-"])
        self.assertEqual((arm.image_target, x86.image_target, x86.cross), ("Image", "bzImage", []))

    def test_the_arm64_guest_boots_on_virt_with_mte_and_a_virtio_console(self):
        with tempfile.TemporaryDirectory() as d:
            cmd = qemu.Boot("Image", "initrd", "kasan=off", "tcg", d, arch="arm64").cmd
        self.assertIn("virt,mte=on", cmd)
        self.assertIn("virtconsole,chardev=results", cmd)
        self.assertTrue(cmd[-1].startswith("console=ttyAMA0 lab_results=/dev/hvc0"), cmd[-1])
        self.assertTrue(cmd[cmd.index("-kernel") - 1] != "host")

    def test_missing_sources_name_the_debian_package(self):
        k = kernels.Kernel("v", "linux-source-9.9", "/nonexistent.tar.xz", (), (), "test")
        with self.assertRaises(LabError) as e:
            kernels.check_build_tools(k)
        self.assertIn("linux-source-9.9", str(e.exception))
        self.assertEqual(e.exception.status, 2)


class CacheDirectory(unittest.TestCase):
    def test_a_cache_another_user_may_change_is_refused(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to give a directory to another user")
        with tempfile.TemporaryDirectory() as d:
            os.chmod(d, 0o755)
            theirs = os.path.join(d, "theirs")
            os.mkdir(theirs)
            os.chown(theirs, 65534, 65534)
            with self.assertRaises(LabError) as e:
                kernels.secure_cache(os.path.join(theirs, "cache"))
            self.assertIn(theirs, str(e.exception))
            open_to_all = os.path.join(d, "open")
            os.mkdir(open_to_all)
            os.chmod(open_to_all, 0o777)
            with self.assertRaises(LabError):
                kernels.secure_cache(open_to_all)
            mine = os.path.join(d, "mine", "cache")
            kernels.secure_cache(mine)
            self.assertEqual(os.stat(mine).st_mode & 0o777, 0o700)


class CommandLine(unittest.TestCase):
    def test_bad_values_are_refused_with_status_2(self):
        for argv in (["--trials", "0"], ["--kernels", "5.4"], ["--experiments", "seed009"],
                     ["--seconds", "x"], ["--ci", "--quick"]):
            with self.assertRaises(SystemExit) as e:
                cli.parse(argv)
            self.assertEqual(e.exception.code, 2, argv)


class Out(unittest.TestCase):
    def test_a_link_or_a_fifo_at_an_output_is_refused_before_the_run(self):
        with tempfile.TemporaryDirectory() as d:
            os.symlink("/etc/passwd", os.path.join(d, "results.json"))
            with self.assertRaises(LabError):
                report.prepare_out(d)
            os.unlink(os.path.join(d, "results.json"))
            os.mkfifo(os.path.join(d, "results.md"))
            with self.assertRaises(LabError):
                report.prepare_out(d)


if __name__ == "__main__":
    argv = [sys.argv[0]] + [a for a in sys.argv[2:]]
    unittest.main(argv=argv, verbosity=2)
