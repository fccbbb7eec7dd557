// SPDX-License-Identifier: BSD-3-Clause
/* hdp-fwd's configuration: options, files, and every error's message. */
#include <criterion/criterion.h>

#include <hdp/fwd.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static struct hdp_fwd_cfg *cfg;

static void setup(void)
{
	capture_logs();
	cfg = malloc(sizeof(*cfg));
	hdp_fwd_cfg_defaults(cfg);
}

TestSuite(fwd_config, .init = setup);

static const char *write_ini(const char *text)
{
	static char path[] = "/tmp/hdp-fwd-test-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

Test(fwd_config, ports_pair_up_in_order)
{
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,b:1,c,d", "--ports"), 0);
	/*
	 * Allowed with fewer frames than the rings hold; said once by the
	 * checks before start-up, which know every queue, not here.
	 */
	cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
	cr_assert(!log_contains("cannot keep"), "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "frames", "16384", "--frames", 0), 0);
	cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
	cr_assert_eq(cfg->nports, 4);
	cr_assert_eq(cfg->ports[1].queue, 1);
	cr_assert_eq(cfg->ports[0].peer, 1);
	cr_assert_eq(cfg->ports[1].peer, 0);
	cr_assert_eq(cfg->ports[2].peer, 3);
	cr_assert_eq(cfg->ports[3].peer, 2);
}

Test(fwd_config, bad_options_name_what_is_wrong)
{
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,,b:99", "--ports"), -EINVAL);
	cr_assert(log_contains("--ports 'a,,b:99'"), "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,a", "--ports"), -EINVAL);
	cr_assert(log_contains("listed twice"), "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_cores(cfg, "1,x", "--cores"), -EINVAL);
	cr_assert(log_contains("--cores '1,x'"), "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "frame_size", "3000", "--x", 0), -EINVAL);
	cr_assert(log_contains("2048 or 4096"), "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "ring_size", "1000", "--x", 0), -EINVAL);
	cr_assert(log_contains("power of two"), "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "frames", "-5", "--x", 0), -EINVAL);
}

/* strtoul takes a leading blank and a sign: every number here is digits only. */
Test(fwd_config, numbers_are_digits_only)
{
	static const char *const keys[] = { "frames", "duration", "stats_interval",
					    "idle_spin_us", "busy_budget", "batch" };
	static const char *const values[] = { " 5", "\t5", "+5", "-5", "", "5 ", "0x5" };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++)
			cr_assert_eq(hdp_fwd_cfg_set_global(cfg, keys[k], values[v], "--x", 0), -EINVAL,
				     "%s '%s' was taken", keys[k], values[v]);
	cr_assert_eq(hdp_fwd_cfg_set_cores(cfg, " 0", "--cores"), -EINVAL);
	cr_assert_eq(hdp_fwd_cfg_set_cores(cfg, "0-+0", "--cores"), -EINVAL);
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a: 1,b", "--ports"), -EINVAL);
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "idle_spin_us", "5", "--x", 0), 0);
	cr_assert_eq(cfg->idle_spin_us, 5);
}

Test(fwd_config, a_port_needs_a_peer_and_each_output_one_input)
{
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,b,c", "--ports"), 0);
	cr_assert_eq(hdp_fwd_cfg_check(cfg), -EINVAL);
	cr_assert(log_contains("port c has no peer"), "%s", captured_logs());
}

Test(fwd_config, l2_needs_destination_macs)
{
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,b", "--ports"), 0);
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "mode", "l2", "--mode", 0), 0);
	cr_assert_eq(hdp_fwd_cfg_check(cfg), -EINVAL);
	cr_assert(log_contains("mode l2: [port:a] needs dst_mac"), "%s", captured_logs());
}

Test(fwd_config, a_file_sets_global_ports_and_pools)
{
	const char *path = write_ini(
		"[global]\nmode = l2\ncores = 0-1\nframes = 16384\n"
		"[port:a]\ndst_mac = 02:00:00:00:00:01\npeer = b\n"
		"[port:b]\ndst_mac = 02:00:00:00:00:02\nsrc_mac = 02:00:00:00:aa:bb\npeer = a\n"
		"[pool:umem]\ntag_sample = 7\n");
	struct hdp_profile p;
	int ret = hdp_fwd_cfg_load(cfg, path);

	unlink(path);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, 0, "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
	cr_assert_eq(cfg->mode, HDP_FWD_L2);
	cr_assert_eq(cfg->ncores, 2);
	cr_assert_eq(cfg->frames, 16384);
	cr_assert_eq(cfg->nports, 2);
	cr_assert_eq(cfg->ports[1].src_mac[4], 0xaa);
	cr_assert_eq(cfg->ports[0].peer, 1);
	hdp_harden_config_resolve(&cfg->harden, "umem", &p);
	cr_assert_eq(p.tag_sample, 7);
}

Test(fwd_config, file_errors_name_file_line_section_key_and_value)
{
	const char *path = write_ini("[global]\nmode = io\n[port:a]\ndst_mac = 02:00\n"
				     "[ports]\nx = 1\n[global]\nspeed = 11\n");
	int ret = hdp_fwd_cfg_load(cfg, path);

	unlink(path);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, -EINVAL);
	cr_assert(log_contains(":4: [port:a] key 'dst_mac', value '02:00'"), "%s", captured_logs());
	cr_assert(log_contains(":5: section [ports] is unknown"), "%s",
		  captured_logs());
	cr_assert(log_contains(":8: [global] key 'speed', value '11': unknown key"), "%s",
		  captured_logs());
	cr_assert_eq(cfg->nports, 0, "nothing is half configured");
}

/*
 * "[pool:umem] tag = off" left umem at tag = auto and the file was taken
 * (--check-config said 0): libinih ignores whatever follows a header's
 * ']'. Refused by line, section and text, in hdp-fwd's sections too.
 */
Test(fwd_config, text_after_a_section_header_is_refused)
{
	const char *path = write_ini("[global]x\nmode = macswap\n[pool:umem] tag = off\n"
				     "[port:a]]\npeer = b\n[port:b] ; a comment is fine\n");
	struct hdp_profile p;
	int ret = hdp_fwd_cfg_load(cfg, path);

	unlink(path);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, -EINVAL);
	cr_assert(log_contains(":1: section [global]: 'x' after its ']'"), "%s", captured_logs());
	cr_assert(log_contains(":3: section [pool:umem]: 'tag = off' after its ']'"), "%s",
		  captured_logs());
	cr_assert(log_contains(":4: section [port:a]: ']' after its ']'"), "%s", captured_logs());
	cr_assert(!log_contains(":6:"), "%s", captured_logs());
	cr_assert_eq(cfg->mode, HDP_FWD_IO, "nothing is half configured");
	hdp_harden_config_resolve(&cfg->harden, "umem", &p);
	cr_assert_eq(p.tag, HDP_TAG_AUTO);
}

/* A comment line past 198 characters made the whole file be refused. */
Test(fwd_config, a_comment_line_of_any_length_is_taken)
{
	char text[1024] = "[global]\n; ";
	const char *path;
	int ret;

	memset(text + strlen(text), 'x', 600);
	strcat(text, "\nmode = macswap\n");
	path = write_ini(text);
	ret = hdp_fwd_cfg_load(cfg, path);
	unlink(path);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, 0, "%s", captured_logs());
	cr_assert_eq(cfg->mode, HDP_FWD_MACSWAP);
}

Test(fwd_config, the_shipped_configs_load)
{
	static const char *const files[] = { "default.ini", "strict.ini", "fast.ini",
					     "l2-example.ini" };
	char path[512];

	for (size_t i = 0; i < 4; i++) {
		hdp_fwd_cfg_defaults(cfg);
		snprintf(path, sizeof(path), "%s/%s", CONFIG_DIR, files[i]);
		cr_assert_eq(hdp_fwd_cfg_load(cfg, path), 0, "%s: %s", files[i],
			     captured_logs());
		hdp_fwd_cfg_set_ports(cfg, "f0,f1", "--ports");
		cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s: %s", files[i], captured_logs());
	}
}

/* Off unless asked; microseconds up to a second, from a file or --idle-spin. */
Test(fwd_config, idle_spin_us_is_off_by_default_and_at_most_a_second)
{
	static const char *const refused[] = { "1000001", "-1", "+5", "", "1ms", "0x10",
					       "99999999999999999999" };

	cr_assert_eq(cfg->idle_spin_us, 0);
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "idle_spin_us", "200", "--idle-spin", 0), 0);
	cr_assert_eq(cfg->idle_spin_us, 200);
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "idle_spin_us", "1000000", "--idle-spin", 0), 0);
	cr_assert_eq(cfg->idle_spin_us, 1000000);
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "idle_spin_us", "0", "--idle-spin", 0), 0);
	cr_assert_eq(cfg->idle_spin_us, 0);
	for (size_t i = 0; i < HDP_ARRAY_SIZE(refused); i++) {
		clear_logs();
		cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "idle_spin_us", refused[i], "--idle-spin",
						    0), -EINVAL, "'%s'", refused[i]);
		cr_assert(log_contains("--idle-spin '"), "%s", captured_logs());
		cr_assert(log_contains("expected microseconds from 0 (off: sleep at once) to "
				       "1000000"), "%s", captured_logs());
		cr_assert_eq(cfg->idle_spin_us, 0, "'%s' left its mark", refused[i]);
	}
}

Test(fwd_config, a_bad_idle_spin_us_names_file_line_key_and_value)
{
	const char *path = write_ini("[global]\nmode = io\n\nidle_spin_us = 2000000\n");
	int ret = hdp_fwd_cfg_load(cfg, path);

	unlink(path);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, -EINVAL);
	cr_assert(log_contains(":4: [global] key 'idle_spin_us', value '2000000': expected "
			       "microseconds from 0 (off: sleep at once) to 1000000"), "%s",
		  captured_logs());
}

/* The process's MTE mode: sync unless asked, three names, a bad one named. */
Test(fwd_config, tag_check_takes_sync_async_asymm_and_names_a_bad_one)
{
	static const char *const refused[] = { "", "SYNC", "fast", "asym", "none", "sync," };

	cr_assert_eq(cfg->tag_check, HDP_TAG_CHECK_SYNC);
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "tag_check", "async", "t.ini", 4), 0);
	cr_assert_eq(cfg->tag_check, HDP_TAG_CHECK_ASYNC);
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "tag_check", "asymm", "t.ini", 4), 0);
	cr_assert_eq(cfg->tag_check, HDP_TAG_CHECK_ASYMM);
	for (size_t i = 0; i < HDP_ARRAY_SIZE(refused); i++) {
		clear_logs();
		cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "tag_check", refused[i], "t.ini", 9),
			     -EINVAL, "'%s'", refused[i]);
		cr_assert(log_contains("t.ini") && log_contains("tag_check") &&
			  log_contains("expected sync, async or asymm"), "%s", captured_logs());
		cr_assert_eq(cfg->tag_check, HDP_TAG_CHECK_ASYMM, "'%s' left its mark", refused[i]);
	}
}

/* The threads run in the mode: a reload may not change it. */
Test(fwd_config, tag_check_needs_a_restart)
{
	static struct hdp_fwd_cfg next;

	next = *cfg;
	cr_assert_null(hdp_fwd_cfg_restart_key(cfg, &next));
	cr_assert_eq(hdp_fwd_cfg_set_global(&next, "tag_check", "async", "t.ini", 2), 0);
	cr_assert_str_eq(hdp_fwd_cfg_restart_key(cfg, &next), "tag_check");
}

/* @text loaded as a file into @c, defaults first: hdp_fwd_cfg_load()'s answer. */
static int load_text(struct hdp_fwd_cfg *c, const char *text)
{
	char path[] = "/tmp/hdp-fwd-test-XXXXXX";
	int fd = mkstemp(path), ret;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	hdp_fwd_cfg_defaults(c);
	ret = hdp_fwd_cfg_load(c, path);
	unlink(path);
	return ret;
}

/* A [port:IF] key is built into the running ports: a reload that changes one needs a restart. */
Test(fwd_config, port_keys_need_a_restart)
{
	static const char *const changes[] = {
		"[port:b]\ndst_mac = 02:00:00:00:00:03\n",
		"[port:a]\nsrc_mac = 02:00:00:00:aa:bb\n",
		"[port:a]\npeer = c\n[port:c]\npeer = a\n[port:b]\npeer = d\n[port:d]\npeer = b\n",
	};
	const char *base = "[global]\nmode = l2\nports = a,b,c,d\n"
			   "[port:a]\ndst_mac = 02:00:00:00:00:01\n"
			   "[port:b]\ndst_mac = 02:00:00:00:00:02\n"
			   "[port:c]\ndst_mac = 02:00:00:00:00:01\n"
			   "[port:d]\ndst_mac = 02:00:00:00:00:02\n";
	static struct hdp_fwd_cfg running, next;
	char text[512];
	int ret = load_text(&running, base);

	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, 0, "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_check(&running), 0, "%s", captured_logs());
	cr_assert_eq(load_text(&next, base), 0, "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_check(&next), 0, "%s", captured_logs());
	cr_assert_null(hdp_fwd_cfg_restart_key(&running, &next));
	for (size_t i = 0; i < HDP_ARRAY_SIZE(changes); i++) {
		snprintf(text, sizeof(text), "%s%s", base, changes[i]);
		cr_assert_eq(load_text(&next, text), 0, "%s", captured_logs());
		cr_assert_eq(hdp_fwd_cfg_check(&next), 0, "%s", captured_logs());
		cr_assert_str_eq(hdp_fwd_cfg_restart_key(&running, &next),
				 "ports (or a [port:IF] key)", "%s", changes[i]);
	}
}

Test(fwd_config, an_unknown_port_key_names_the_keys)
{
	const char *path = write_ini("[port:a]\nmtu = 1500\n");
	int ret = hdp_fwd_cfg_load(cfg, path);

	unlink(path);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, -EINVAL);
	cr_assert(log_contains(":2: [port:a] key 'mtu', value '1500': unknown key "
			       "(peer, src_mac, dst_mac)"), "%s", captured_logs());
}

/* Without the key, the environment's wish: a file that drops it means that, not what runs. */
Test(fwd_config, tag_check_defaults_to_the_environment)
{
	static struct hdp_fwd_cfg c;

	setenv("HDP_TAG_CHECK", "asymm", 1);
	hdp_fwd_cfg_defaults(&c);
	cr_assert_eq(c.tag_check, HDP_TAG_CHECK_ASYMM);
	setenv("HDP_TAG_CHECK", "bogus", 1);
	hdp_fwd_cfg_defaults(&c);
	cr_assert_eq(c.tag_check, HDP_TAG_CHECK_SYNC);
	unsetenv("HDP_TAG_CHECK");
}

/*
 * The options that set keys come from one list: each is in --help, sets
 * its key through the key table's parser (a refusal names the option, and
 * --check-config's origin is the option), and "--ctl none" means no socket.
 */
Test(fwd_config, key_options_set_their_keys_and_name_themselves)
{
	struct option opts[64];
	unsigned n = hdp_fwd_key_options(opts, 64, 1000);
	char help[8192];

	cr_assert_geq(n, 11);
	cr_assert_lt(hdp_fwd_key_options_describe(help, sizeof(help)), (int)sizeof(help));
	for (unsigned i = 0; i < n; i++) {
		char named[64];

		cr_assert_eq(opts[i].val, 1000 + (int)i);
		snprintf(named, sizeof(named), "  --%s", opts[i].name);
		cr_assert(strstr(help, named), "--help lacks %s", named);
		if (opts[i].has_arg == no_argument) {
			cr_assert_eq(hdp_fwd_cfg_set_option(cfg, i, NULL), 0, "--%s", opts[i].name);
			continue;
		}
		/* Text keys take anything that fits; the others refuse a stray byte. */
		if (strcmp(opts[i].name, "ctl") && strcmp(opts[i].name, "metrics-file") &&
		    strcmp(opts[i].name, "user")) {
			char said[64];

			cr_assert_eq(hdp_fwd_cfg_set_option(cfg, i, "1\x01"), -EINVAL, "--%s",
				     opts[i].name);
			snprintf(said, sizeof(said), "--%s '", opts[i].name);
			cr_assert(strstr(captured_logs(), said), "%s", captured_logs());
		}
	}
	cr_assert_eq(hdp_fwd_cfg_set_option(cfg, n, "1"), -EINVAL, "no option %u", n);
	for (unsigned i = 0; i < n; i++) {
		if (opts[i].has_arg != no_argument)
			cr_assert_eq(hdp_fwd_cfg_set_option(cfg, i, NULL), -EINVAL, "--%s",
				     opts[i].name);
		if (strcmp(opts[i].name, "ctl"))
			continue;
		cr_assert_eq(hdp_fwd_cfg_set_option(cfg, i, "/run/x.sock"), 0);
		cr_assert_str_eq(cfg->ctl_path, "/run/x.sock");
		cr_assert_eq(hdp_fwd_cfg_set_option(cfg, i, "none"), 0);
		cr_assert_str_eq(cfg->ctl_path, "");
		cr_assert_str_eq(cfg->origin[HDP_FWD_KEY_CTL_SOCKET].source, "--ctl");
	}
}
