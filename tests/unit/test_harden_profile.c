// SPDX-License-Identifier: BSD-3-Clause
#include <criterion/criterion.h>

#include <hdp/profile.h>
#include <hdp/protection.h>
#include <hdp/tag.h>

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

static struct hdp_harden_config *cfg;

static void setup(void)
{
	capture_logs();
	/* As an application makes one: every test here starts from what new gives. */
	cfg = hdp_harden_config_new();
	cr_assert_not_null(cfg);
	hdp_harden_config_declare(cfg, "rx");
	hdp_harden_config_declare(cfg, "tx");
}

static void teardown(void)
{
	hdp_harden_config_free(cfg);
}

TestSuite(harden_profile, .init = setup, .fini = teardown);

static struct hdp_profile resolve(const char *pool)
{
	struct hdp_profile p;

	hdp_harden_config_resolve(cfg, pool, &p);
	return p;
}

/* Structs have padding: compare what a profile says, not its bytes. */
static bool same_profile(const struct hdp_profile *a, const struct hdp_profile *b)
{
	char fa[256], fb[256];

	hdp_profile_format(a, fa, sizeof(fa));
	hdp_profile_format(b, fb, sizeof(fb));
	return a->set == b->set && strcmp(fa, fb) == 0;
}

static void expect_string_error(const char *spec, const char *message)
{
	struct hdp_profile before = resolve("rx"), after;

	clear_logs();
	cr_assert_eq(hdp_harden_config_parse_string(cfg, spec, "--harden"), -EINVAL,
		     "'%s' was accepted", spec);
	cr_assert(log_contains(message), "'%s': log lacks '%s':\n%s", spec, message,
		  captured_logs());
	after = resolve("rx");
	cr_assert(same_profile(&before, &after),
		  "a rejected string changed the configuration");
}

Test(harden_profile, defaults_turn_every_protection_on)
{
	struct hdp_profile p = resolve(NULL);

	cr_assert(p.bounds);
	cr_assert_eq(p.bounds_lookup, HDP_LOOKUP_FAST);
	cr_assert_not(p.init_on_alloc);
	cr_assert_eq(p.init_on_free, HDP_INIT_FREE_ON);
	cr_assert(p.init_check);
	cr_assert_eq(p.tag, HDP_TAG_AUTO);
	cr_assert_eq(p.tag_sample, 1);
	cr_assert_eq(p.on_violation, HDP_POLICY_ABORT);
	cr_assert_eq(p.set, 0);
}

Test(harden_profile, a_string_sets_all_pools_and_named_ones)
{
	struct hdp_profile rx, tx;

	cr_assert_eq(hdp_harden_config_parse_string(cfg,
		"init_on_free=used,tag_sample=10,pool.rx.tag_sample=4,"
		"pool.tx.bounds=off,bounds_lookup=tree,on_violation=report,"
		"tag_sample_min=4k,init_on_alloc=1,tag=soft", "--harden"), 0,
		"%s", captured_logs());
	rx = resolve("rx");
	tx = resolve("tx");
	cr_assert_eq(rx.tag_sample, 4);
	cr_assert_eq(tx.tag_sample, 10);
	cr_assert(rx.bounds);
	cr_assert_not(tx.bounds);
	cr_assert_eq(rx.init_on_free, HDP_INIT_FREE_USED);
	cr_assert_eq(rx.bounds_lookup, HDP_LOOKUP_TREE);
	cr_assert_eq(rx.on_violation, HDP_POLICY_REPORT);
	cr_assert_eq(rx.tag_sample_min, 4096);
	cr_assert(rx.init_on_alloc);
	cr_assert_eq(rx.tag, HDP_TAG_SOFT);
}

Test(harden_profile, bad_strings_name_the_item_key_and_value)
{
	expect_string_error("tag_sample=0", "--harden, item 1: key 'tag_sample', value '0': expected a whole number from 1 to 65535");
	expect_string_error("bounds=on,tag_sample=-3", "item 2: key 'tag_sample', value '-3'");
	expect_string_error("tag_sample=ten", "value 'ten'");
	expect_string_error("tag_sample=65536", "value '65536'");
	expect_string_error("tag_sample=99999999999", "value '99999999999'");
	expect_string_error("tag_sample_min=2M", "key 'tag_sample_min', value '2M'");
	expect_string_error("bounds=maybe", "key 'bounds', value 'maybe': expected on or off");
	expect_string_error("bounds_lookup=hash", "expected fast or tree");
	expect_string_error("init_on_free=sometimes", "expected off, on or used");
	expect_string_error("tag=always", "expected off, auto, mte or soft");
	expect_string_error("on_violation=panic", "expected abort, drop or report");
	expect_string_error("colour=blue", "key 'colour', value 'blue': unknown key");
	expect_string_error("pool.nosuch.bounds=on", "pool 'nosuch', key 'bounds', value 'on': no pool "
			    "'nosuch' is declared in this configuration (declare it first: "
			    "hdp_harden_config_declare)");
	expect_string_error("pool.default.bounds=on", "no pool is called 'default' (a key for "
			    "every pool is given alone: KEY=VALUE)");
	expect_string_error("pool.rx=on", "'pool.rx' should read pool.NAME.KEY");
	expect_string_error("pool..bounds=on", "should read pool.NAME.KEY");
	expect_string_error("bounds", "'bounds' is not key=value");
	expect_string_error("pool.rx.init_exclude=a", "init_exclude is one list for all pools");
	expect_string_error("init_exclude=a/b", "'a/b' is not a pool name or glob");
	expect_string_error("init_check_sample=0", "key 'init_check_sample', value '0': expected a whole number from 1 to 65535");
	expect_string_error("init_check_sample=65536", "value '65536'");
}

/*
 * A list cut to fit a buffer could end in a glob that matches every pool
 * ("init_exclude=" + 1022 spaces + "*_tx" became "*"): refused, whole.
 */
Test(harden_profile, a_long_exclusion_list_is_refused_never_cut)
{
	static char spec[1200];
	size_t n = strlen("init_exclude=");

	memcpy(spec, "init_exclude=", n);
	memset(spec + n, ' ', 1022);
	strcpy(spec + n + 1022, "*_tx");
	expect_string_error(spec, "item 1: init_exclude list longer than 1023 characters");
	/* The same length reached through continuation items. */
	n = (size_t)sprintf(spec, "init_exclude=a");
	for (int i = 0; n < 1100; i++)
		n += (size_t)sprintf(spec + n, ",pool%04d", i);
	strcat(spec, ",tag=off");
	expect_string_error(spec, "init_exclude list longer than 1023 characters");
}

Test(harden_profile, init_check_follows_init_on_free_unless_set)
{
	struct hdp_profile rx;

	cr_assert_eq(hdp_harden_config_parse_string(cfg, "init_on_free=off", "--harden"), 0);
	rx = resolve("rx");
	cr_assert(!rx.init_check, "nothing wipes, so init_check is off by default");
	cr_assert_eq(hdp_harden_config_validate(cfg), 0);
	cr_assert_eq(hdp_harden_config_parse_string(cfg, "init_on_free=off,init_check=on",
						     "--harden"), 0);
	cr_assert_eq(hdp_harden_config_validate(cfg), -EINVAL);
	cr_assert(log_contains("init_check=on needs init_on_free=on or used"), "%s",
		  captured_logs());
}

Test(harden_profile, every_error_in_a_string_is_reported_at_once)
{
	expect_string_error("tag_sample=0,bounds=maybe", "tag_sample");
	cr_assert(log_contains("bounds"), "%s", captured_logs());
}

Test(harden_profile, the_string_wins_over_the_file_and_named_over_all)
{
	cr_assert_eq(hdp_harden_config_set(cfg, false, NULL, "tag_sample", "8", "f.ini", 2), 0);
	cr_assert_eq(hdp_harden_config_set(cfg, false, "rx", "tag_sample", "6", "f.ini", 5), 0);
	cr_assert_eq(hdp_harden_config_set(cfg, false, "rx", "bounds", "off", "f.ini", 6), 0);
	cr_assert_eq(resolve("rx").tag_sample, 6);
	cr_assert_eq(resolve("tx").tag_sample, 8);
	/* A bare key on the command line overrides every pool's file setting. */
	cr_assert_eq(hdp_harden_config_parse_string(cfg, "tag_sample=3", "--harden"), 0);
	cr_assert_eq(resolve("rx").tag_sample, 3);
	cr_assert_eq(resolve("tx").tag_sample, 3);
	cr_assert_not(resolve("rx").bounds, "keys the string did not set stay");
	cr_assert_eq(hdp_harden_config_parse_string(cfg, "pool.rx.tag_sample=2", "--harden"), 0);
	cr_assert_eq(resolve("rx").tag_sample, 2);
	cr_assert_eq(resolve("tx").tag_sample, 3);
}

Test(harden_profile, builtin_exclusions_cover_rx_frames_for_init_on_alloc)
{
	char why[128];

	cr_assert_eq(hdp_harden_config_excluded(cfg, "umem", why, sizeof(why)),
		     HDP_KEY_INIT_ON_ALLOC);
	cr_assert_str_eq(why, "built-in 'umem*' (init_on_alloc)");
	cr_assert_eq(hdp_harden_config_excluded(cfg, "rx", why, sizeof(why)),
		     HDP_KEY_INIT_ON_ALLOC);
	cr_assert_eq(hdp_harden_config_excluded(cfg, "tx", why, sizeof(why)), 0);
	cr_assert_str_eq(why, "");
}

Test(harden_profile, exclusion_lists_take_globs_and_none)
{
	const uint32_t all = HDP_KEY_INIT_ON_ALLOC | HDP_KEY_INIT_ON_FREE |
			     HDP_KEY_INIT_CHECK;
	char why[128];

	cr_assert_eq(hdp_harden_config_parse_string(cfg,
		"init_exclude=cache-*,ctl?,bounds=on", "--harden"), 0, "%s",
		captured_logs());
	cr_assert_eq(hdp_harden_config_excluded(cfg, "cache-7", why, sizeof(why)), all);
	cr_assert_str_eq(why, "init_exclude 'cache-*'");
	cr_assert_eq(hdp_harden_config_excluded(cfg, "ctl1", why, sizeof(why)), all);
	cr_assert_eq(hdp_harden_config_excluded(cfg, "ctl12", why, sizeof(why)), 0);
	cr_assert_eq(hdp_harden_config_excluded(cfg, "umem", why, sizeof(why)),
		     HDP_KEY_INIT_ON_ALLOC, "names add to the built-in list");

	cr_assert_eq(hdp_harden_config_parse_string(cfg, "init_exclude=none", "--harden"), 0);
	cr_assert_eq(hdp_harden_config_excluded(cfg, "umem", why, sizeof(why)), 0,
		     "none drops the built-in exclusions");
	cr_assert_eq(hdp_harden_config_excluded(cfg, "cache-7", why, sizeof(why)), 0,
		     "a later list replaces an earlier one");

	cr_assert_eq(hdp_harden_config_parse_string(cfg, "init_exclude=none,cache-*", "--harden"), 0);
	cr_assert_eq(hdp_harden_config_excluded(cfg, "umem", why, sizeof(why)), 0);
	cr_assert_eq(hdp_harden_config_excluded(cfg, "cache-1", why, sizeof(why)), all);

	cr_assert_eq(hdp_harden_config_parse_string(cfg, "init_exclude=default", "--harden"), 0);
	cr_assert_eq(hdp_harden_config_excluded(cfg, "umem", why, sizeof(why)),
		     HDP_KEY_INIT_ON_ALLOC);
}

Test(harden_profile, globs_match_like_a_shell)
{
	cr_assert(hdp_glob_match("*", ""));
	cr_assert(hdp_glob_match("rx*", "rx"));
	cr_assert(hdp_glob_match("rx*", "rx-queue-1"));
	cr_assert(hdp_glob_match("*-1", "rx-queue-1"));
	cr_assert(hdp_glob_match("r?-*", "rx-q"));
	cr_assert(hdp_glob_match("a*b*c", "aXXbYYc"));
	cr_assert_not(hdp_glob_match("a*b*c", "aXXbYY"));
	cr_assert_not(hdp_glob_match("rx", "rx1"));
	cr_assert_not(hdp_glob_match("?", ""));
}

Test(harden_profile, contradictions_are_rejected_before_anything_starts)
{
	cr_assert_eq(hdp_harden_config_validate(cfg), 0);
	/* init_on_free off alone quietly disables the default init_check... */
	cr_assert_eq(hdp_harden_config_parse_string(cfg, "init_on_free=off", "--harden"), 0);
	cr_assert_eq(hdp_harden_config_validate(cfg), 0);
	/* ...but asking for both is a contradiction. */
	cr_assert_eq(hdp_harden_config_parse_string(cfg, "pool.rx.init_check=on", "--harden"), 0);
	clear_logs();
	cr_assert_eq(hdp_harden_config_validate(cfg), -EINVAL);
	cr_assert(log_contains("pool 'rx': init_check=on needs init_on_free=on or used"),
		  "%s", captured_logs());
}

Test(harden_profile, mte_is_refused_where_there_is_none)
{
	if (hdp_tag_mte_available())
		cr_skip_test("this CPU has MTE");
	cr_assert_eq(hdp_harden_config_parse_string(cfg, "tag=mte", "--harden"), 0);
	cr_assert_eq(hdp_harden_config_validate(cfg), -EINVAL);
	cr_assert(log_contains("tag=mte, but this CPU or kernel has no MTE"), "%s",
		  captured_logs());
}

Test(harden_profile, profiles_format_every_key)
{
	struct hdp_profile p;
	char buf[512];

	hdp_profile_defaults(&p);
	hdp_profile_format(&p, buf, sizeof(buf));
	cr_assert_str_eq(buf, "bounds=on,bounds_lookup=fast,init_on_alloc=off,init_on_free=on,"
			 "init_check=on,init_check_sample=64,init_check_extent=all,tag=auto,tag_sample=1,"
			 "tag_sample_min=0,"
			 "on_violation=abort,quarantine=off,quarantine_depth=256,redzone=off,"
			 "redzone_bytes=64,shuffle=off");
}

/*
 * The core describes its keys, counters and kinds from one list each:
 * every value each key allows is taken, formats as itself, and lands in
 * the named field of the profile; every key is in the listing; every
 * violation kind belongs to exactly one part.
 */
Test(harden_profile, core_keys_come_from_their_tables)
{
	static const char *const names[] = { "bounds", "init", "tag", "pool" };
	char listing[8192], buf[512], want[96], value[32];
	unsigned nkeys = 0;
	uint32_t claimed = 0;

	cr_assert_eq(hdp_protection_core_count(), 4);
	cr_assert_null(hdp_protection_core_get(4));
	cr_assert_gt(hdp_profile_keys_describe(listing, sizeof(listing)), 0);
	cr_assert_lt((size_t)hdp_profile_keys_describe(NULL, 0), sizeof(listing));
	for (unsigned i = 0; i < 4; i++) {
		const struct hdp_protection *bi = hdp_protection_core_get(i);

		cr_assert_str_eq(bi->name, names[i]);
		cr_assert_null(hdp_protection_find(bi->name), "%s is in the registry", bi->name);
		/* Its violation kinds are catalogue kinds, each claimed once. */
		for (unsigned v = 0; v < bi->nviolations; v++) {
			unsigned kind = 0;

			while (kind < HDP_V__COUNT &&
			       strcmp(hdp_violation_name(kind), bi->violations[v].name))
				kind++;
			cr_assert_lt(kind, HDP_V__COUNT, "%s: no kind %s", bi->name,
				     bi->violations[v].name);
			cr_assert_not(claimed >> kind & 1, "%s claimed twice", bi->violations[v].name);
			claimed |= 1u << kind;
		}
		for (unsigned k = 0; k < bi->nkeys; k++) {
			const struct hdp_protection_key *key = &bi->keys[k];
			unsigned nvalues = key->type == HDP_VALUE_BOOL ? 2 :
					   key->type == HDP_VALUE_CHOICE ? 0 : 3;
			struct hdp_profile p;
			const char *why;

			if (key->type == HDP_VALUE_CHOICE)
				while (key->choices[nvalues])
					nvalues++;
			snprintf(want, sizeof(want), "\n%s ", key->name);
			cr_assert(strstr(listing, want + 1) == listing || strstr(listing, want),
				  "--list-keys lacks %s", key->name);
			for (unsigned v = 0; v < nvalues; v++) {
				if (key->type == HDP_VALUE_BOOL)
					snprintf(value, sizeof(value), "%s", v ? "on" : "off");
				else if (key->type == HDP_VALUE_CHOICE)
					snprintf(value, sizeof(value), "%s", key->choices[v]);
				else
					snprintf(value, sizeof(value), "%u",
						 v == 0 ? key->min : v == 1 ? key->def : key->max);
				hdp_profile_defaults(&p);
				cr_assert_eq(hdp_profile_set_key(&p, key->name, value, &why), 0,
					     "%s=%s: %s", key->name, value, why);
				hdp_profile_format(&p, buf, sizeof(buf));
				snprintf(want, sizeof(want), "%s=%s,", key->name, value);
				cr_assert(strstr(buf, want), "%s=%s formats as %s", key->name,
					  value, buf);
			}
			nkeys++;
		}
	}
	cr_assert_eq(nkeys, HDP_CK__COUNT);
	cr_assert_eq(claimed, (1u << HDP_V__COUNT) - 1, "every core kind has a part");
}

/* Where a choice begins with off, the booleans name its first two values. */
Test(harden_profile, choices_that_begin_with_off_take_booleans)
{
	struct hdp_profile p;
	const char *why;

	hdp_profile_defaults(&p);
	cr_assert_eq(hdp_profile_set_key(&p, "init_on_free", "0", &why), 0);
	cr_assert_eq(p.init_on_free, HDP_INIT_FREE_OFF);
	cr_assert_eq(hdp_profile_set_key(&p, "init_on_free", "yes", &why), 0);
	cr_assert_eq(p.init_on_free, HDP_INIT_FREE_ON);
	cr_assert_eq(hdp_profile_set_key(&p, "tag", "on", &why), 0);
	cr_assert_eq(p.tag, HDP_TAG_AUTO);
	cr_assert_eq(hdp_profile_set_key(&p, "tag", "false", &why), 0);
	cr_assert_eq(p.tag, HDP_TAG_OFF);
	cr_assert_eq(hdp_profile_set_key(&p, "bounds_lookup", "on", &why), -EINVAL);
	cr_assert_str_eq(why, "expected fast or tree");
	cr_assert_eq(hdp_profile_set_key(&p, "tag_sample_min", "2M", &why), -EINVAL);
	cr_assert_str_eq(why, "expected a size in bytes from 0 to 1M (k and M suffixes allowed)");
	cr_assert_eq(hdp_profile_set_key(&p, "tag_sample_min", "1M", &why), 0);
	cr_assert_eq(p.tag_sample_min, 1u << 20);
	cr_assert_eq(p.set, HDP_KEY_INIT_ON_FREE | HDP_KEY_TAG | HDP_KEY_TAG_SAMPLE_MIN);
}

#define DATA TEST_DATA_DIR "/"

Test(harden_profile, an_ini_file_fills_the_file_layer)
{
	struct hdp_profile rx, tx, other;
	char why[128];

	if (hdp_harden_config_load_file(cfg, DATA "good.ini", NULL, NULL) == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_str_eq(captured_logs(), "");
	rx = resolve("rx");
	tx = resolve("tx");
	other = resolve("cache-1");
	cr_assert_eq(rx.init_on_free, HDP_INIT_FREE_USED);
	cr_assert_eq(rx.tag, HDP_TAG_SOFT);
	cr_assert_eq(rx.tag_sample, 10);
	cr_assert_eq(tx.on_violation, HDP_POLICY_REPORT);
	cr_assert_eq(other.tag_sample, 10);
	cr_assert_eq(hdp_harden_config_excluded(cfg, "cache-1", why, sizeof(why)),
		     HDP_KEY_INIT_ON_ALLOC | HDP_KEY_INIT_ON_FREE | HDP_KEY_INIT_CHECK);
	cr_assert_eq(hdp_harden_config_excluded(cfg, "umem", why, sizeof(why)), 0);
	/* And the string still wins. */
	cr_assert_eq(hdp_harden_config_parse_string(cfg, "pool.rx.init_on_free=on", "-"), 0);
	cr_assert_eq(resolve("rx").init_on_free, HDP_INIT_FREE_ON);
}

Test(harden_profile, ini_errors_name_file_line_key_and_value)
{
	struct hdp_profile before = resolve("rx"), after;
	int ret = hdp_harden_config_load_file(cfg, DATA "bad_value.ini", NULL, NULL);

	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, -EINVAL);
	cr_assert(log_contains("bad_value.ini:5: pool 'rx', key 'tag_sample', value '0'"),
		  "%s", captured_logs());
	cr_assert(log_contains("bad_value.ini:6: pool 'rx', key 'init_on_free', value 'sometimes'"),
		  "%s", captured_logs());
	cr_assert(log_contains("bad_value.ini:7: pool 'rx', key 'colour', value 'blue': unknown key"),
		  "%s", captured_logs());
	after = resolve("rx");
	cr_assert(same_profile(&before, &after), "nothing is half configured");
}

Test(harden_profile, ini_syntax_and_section_errors)
{
	if (hdp_harden_config_load_file(cfg, DATA "bad_syntax.ini", NULL, NULL) == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert(log_contains("bad_syntax.ini:3: syntax error"), "%s", captured_logs());
	clear_logs();
	cr_assert_eq(hdp_harden_config_load_file(cfg, DATA "bad_section.ini", NULL, NULL),
		     -EINVAL);
	cr_assert(log_contains("bad_section.ini:3: section [port:eth0]: only [pool:default] and "
			       "[pool:NAME] sections are known here"), "%s", captured_logs());
	cr_assert(!log_contains("'queue'"), "a refused section's keys are not reported again: %s",
		  captured_logs());
	cr_assert(log_contains("bad_section.ini:6: pool 'rx', key 'init_exclude'"), "%s",
		  captured_logs());
	clear_logs();
	cr_assert_eq(hdp_harden_config_load_file(cfg, DATA "missing.ini", NULL, NULL),
		     -ENOENT);
	cr_assert(log_contains("missing.ini: No such file or directory"), "%s",
		  captured_logs());
}

/* A read that fails is not the end of the file: nothing read before it is taken. */
Test(harden_profile, a_file_that_cannot_be_read_is_refused_not_taken_as_empty)
{
	struct hdp_profile before = resolve("rx"), after;
	int ret = hdp_harden_config_load_file(cfg, DATA, NULL, NULL);

	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, -EINVAL, "a directory: %d", ret);
	cr_assert(log_contains(": cannot read it: Is a directory"), "%s", captured_logs());
	after = resolve("rx");
	cr_assert(same_profile(&before, &after), "nothing changed");
}

/*
 * A FIFO nobody writes to once held open(2) for good (hdp-fwd --config
 * FIFO hung, and so would a reload): it is waited for, briefly, and
 * refused, never taken for an empty file.
 */
Test(harden_profile, a_fifo_nobody_writes_to_is_refused_not_taken_as_empty, .timeout = 40)
{
	struct hdp_profile before = resolve("rx"), after;
	char path[64] = "/tmp/hdp-test-fifo-XXXXXX";
	int ret;

	cr_assert_not_null(mkdtemp(path));
	strcat(path, "/f");
	cr_assert_eq(mkfifo(path, 0600), 0);
	ret = hdp_harden_config_load_file(cfg, path, NULL, NULL);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, -EINVAL, "%d", ret);
	cr_assert(log_contains(": cannot read it: a FIFO that nobody writes to"), "%s",
		  captured_logs());
	after = resolve("rx");
	cr_assert(same_profile(&before, &after), "nothing changed");
}

/*
 * A pipe (--config <(...)) is read to its writer's close, through a pause
 * in the middle of a line: a slow writer is waited for, not cut short.
 */
Test(harden_profile, a_pipe_is_read_to_its_end, .timeout = 40)
{
	static const char text[] = "[pool:rx]\ntag = soft\ntag_sa";
	char path[64];
	int fds[2], ret;
	pid_t writer;

	cr_assert_eq(pipe(fds), 0);
	writer = fork();
	cr_assert_geq(writer, 0);
	if (writer == 0) {
		close(fds[0]);
		if (write(fds[1], text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1)
			_exit(1);
		usleep(300 * 1000);
		_exit(write(fds[1], "mple = 3\n", 9) == 9 ? 0 : 1);
	}
	close(fds[1]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[0]);
	ret = hdp_harden_config_load_file(cfg, path, NULL, NULL);
	close(fds[0]);
	waitpid(writer, NULL, 0);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, 0, "%s", captured_logs());
	cr_assert_eq(resolve("rx").tag_sample, 3);
}

/*
 * /dev/zero once fed the parser a NUL line after another, for ever; a
 * file of 1 MiB is taken, one byte more is not. /dev/null is an empty file.
 */
Test(harden_profile, a_device_or_a_huge_file_is_no_configuration, .timeout = 20)
{
	char path[] = "/tmp/hdp-test-big-XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f = fdopen(fd, "w");

	ret = hdp_harden_config_load_file(cfg, "/dev/zero", NULL, NULL);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, -EINVAL);
	cr_assert(log_contains("/dev/zero: cannot read it: a character device"), "%s",
		  captured_logs());
	cr_assert_eq(hdp_harden_config_load_file(cfg, "/dev/null", NULL, NULL), 0, "%s",
		     captured_logs());
	cr_assert_not_null(f);
	for (int i = 0; i < (1 << 20) / 64; i++)
		fprintf(f, "; a comment line as long as this one, 64 bytes with its newline\n");
	fflush(f);
	cr_assert_eq(ftell(f), 1 << 20);
	cr_assert_eq(hdp_harden_config_load_file(cfg, path, NULL, NULL), 0, "%s",
		     captured_logs());
	fputc('\n', f);
	fclose(f);
	ret = hdp_harden_config_load_file(cfg, path, NULL, NULL);
	unlink(path);
	cr_assert_eq(ret, -EINVAL);
	cr_assert(log_contains(": longer than 1048576 bytes: not a configuration file"), "%s",
		  captured_logs());
}

/* Write @text to a file of its own and load it: the load's return. */
static int load_text(const char *text)
{
	char path[] = "/tmp/hdp-test-ini-XXXXXX";
	int fd = mkstemp(path), ret;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ret = hdp_harden_config_load_file(cfg, path, NULL, NULL);
	unlink(path);
	return ret;
}

/*
 * libinih ignores whatever follows a header's ']': "[pool:rx] tag = off"
 * left rx as it was, and the file was taken. Refused, by line, section
 * and text; the section's keys are not applied.
 */
Test(harden_profile, text_after_a_section_header_is_refused_not_ignored)
{
	static const char *const bad[][2] = {
		{ "[pool:rx] tag = off\n", ":1: section [pool:rx]: 'tag = off' after its ']'" },
		{ "[pool:default]x\ntag = off\n", ":1: section [pool:default]: 'x' after its ']'" },
		{ "\n[pool:rx]]\ntag = off\n", ":2: section [pool:rx]: ']' after its ']'" },
		{ "[pool:rx]\t# a comment?\r\n", ":1: section [pool:rx]: '# a comment?' after" },
	};
	struct hdp_profile before = resolve("rx"), after;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret;

		clear_logs();
		ret = load_text(bad[i][0]);
		if (ret == -EOPNOTSUPP)
			cr_skip_test("built without libinih");
		cr_assert_eq(ret, -EINVAL, "'%s' was taken", bad[i][0]);
		cr_assert(log_contains(bad[i][1]), "%s", captured_logs());
		cr_assert(!log_contains("key 'tag'"), "its keys are not reported again: %s",
			  captured_logs());
		after = resolve("rx");
		cr_assert(same_profile(&before, &after), "'%s' changed rx", bad[i][0]);
	}
	/* Spaces and a comment after ';' are what may follow. */
	clear_logs();
	cr_assert_eq(load_text("[pool:rx]   ; the receive pool\r\ntag = soft\n"
			       "[pool:tx];\ntag = off\n[pool:default] \t\n"), 0,
		     "%s", captured_logs());
	cr_assert_eq(resolve("rx").tag, HDP_TAG_SOFT);
	cr_assert_eq(resolve("tx").tag, HDP_TAG_OFF);
}

/*
 * A comment line past libinih's 198 characters made the whole file be
 * refused. A comment is taken at any length; a line with a key is still
 * refused past 198, naming its line.
 */
Test(harden_profile, a_comment_of_any_length_is_taken_a_long_key_line_is_not)
{
	static char text[8192], value[400];
	int ret;

	memset(value, 'x', sizeof(value) - 1);
	snprintf(text, sizeof(text), "; %.250s\n[pool:rx]\n# %.300s\n  \t; %.199s\ntag = soft\n",
		 value, value, value);
	ret = load_text(text);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, 0, "%s", captured_logs());
	cr_assert_eq(resolve("rx").tag, HDP_TAG_SOFT);

	snprintf(text, sizeof(text), "[pool:rx]\ntag = off\ninit_exclude = a,%.300s\n", value);
	clear_logs();
	cr_assert_eq(load_text(text), -EINVAL);
	cr_assert(log_contains(":3: line longer than 198 characters"), "%s", captured_logs());
	cr_assert_eq(resolve("rx").tag, HDP_TAG_SOFT, "nothing of the file is taken");
	/* A key line whose comment makes it too long: the value could be cut short. */
	snprintf(text, sizeof(text), "[pool:rx]\ntag = off ; %.250s\n", value);
	clear_logs();
	cr_assert_eq(load_text(text), -EINVAL);
	cr_assert(log_contains(":2: line longer than 198 characters"), "%s", captured_logs());
}

struct port_events {
	int headers, keys, header_line;
};

static int count_port_keys(void *ctx, const char *section, const char *key,
			   const char *value, const char *file, int line)
{
	struct port_events *ev = ctx;

	(void)value;
	(void)file;
	if (strcmp(section, "port:eth0"))
		return -EINVAL;
	if (!key) {
		ev->headers++;
		ev->header_line = line;
	} else {
		ev->keys++;
	}
	return 0;
}

Test(harden_profile, other_sections_go_to_their_owner)
{
	struct port_events ev = { 0 };
	int ret = hdp_harden_config_load_file(cfg, DATA "bad_section.ini",
					      count_port_keys, &ev);

	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ev.headers, 1, "the owner hears the section open once");
	cr_assert_eq(ev.header_line, 3, "with the header's line");
	cr_assert_eq(ev.keys, 1);
	cr_assert_eq(ret, -EINVAL, "init_exclude in [pool:rx] is still an error");
}

/*
 * fixed_pools: an application whose pools are all declared (hdp-fwd) has
 * a section for another name refused where it opens, with the names it
 * has, and its keys not taken; without it, the section declares its pool.
 */
Test(harden_profile, fixed_pools_refuse_a_section_for_an_unknown_pool)
{
	char path[] = "/tmp/hdp-test-pools-XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f = fdopen(fd, "w");
	struct hdp_profile rx;

	cr_assert_not_null(f);
	fprintf(f, "[pool:rx]\ntag_sample = 7\n[pool:RX]\ntag_sample = 9\n");
	fclose(f);
	cfg->fixed_pools = true;
	cr_assert_eq(hdp_harden_config_declare(cfg, "rx"), 0);
	cr_assert_eq(hdp_harden_config_declare(cfg, "other"), -ENOENT);
	ret = hdp_harden_config_load_file(cfg, path, NULL, NULL);
	if (ret == -EOPNOTSUPP) {
		unlink(path);
		cr_skip_test("built without libinih");
	}
	cr_assert_eq(ret, -EINVAL, "%s", captured_logs());
	cr_assert(log_contains(":3: section [pool:RX]: no pool is called 'RX' (the pools: "
			       "default, rx, tx)"), "%s", captured_logs());
	rx = resolve("rx");
	cr_assert_neq(rx.tag_sample, 7, "a refused file changes nothing");
	cfg->fixed_pools = false;
	ret = hdp_harden_config_load_file(cfg, path, NULL, NULL);
	unlink(path);
	cr_assert_eq(ret, 0, "%s", captured_logs());
	cr_assert_eq(resolve("RX").tag_sample, 9);
}
