// SPDX-License-Identifier: BSD-3-Clause
/*
 * --check-config's promise, "what is printed reads back as the same
 * configuration", over hostile values: every value the parser takes prints
 * as lines hdp's INI reader takes and reads back to the same print; every
 * value that could not is refused where it is set, saying why. And what
 * the checks after parsing say names where a key was set.
 */
#include <criterion/criterion.h>

#include <hdp/fwd.h>

#include <errno.h>
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

static void teardown(void)
{
	free(cfg);
}

TestSuite(fwd_config_text, .init = setup, .fini = teardown);

/* What --check-config prints of @c, from its second line (the first names the file). */
static char *show(const struct hdp_fwd_cfg *c)
{
	char *text = NULL, *body;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert(f);
	cr_assert_eq(hdp_fwd_cfg_show(c, "test", f), 0, "%s", captured_logs());
	fclose(f);
	body = strdup(strchr(text, '\n') + 1);
	free(text);
	return body;
}

/* @text as a file, read into a fresh configuration and printed again. */
static char *read_back(const char *text)
{
	char path[] = "/tmp/hdp-fwd-text-XXXXXX";
	struct hdp_fwd_cfg *again = malloc(sizeof(*again));
	int fd = mkstemp(path);
	char *out;
	int ret;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	hdp_fwd_cfg_defaults(again);
	ret = hdp_fwd_cfg_load(again, path);
	unlink(path);
	if (ret == -EOPNOTSUPP)
		cr_skip_test("built without libinih");
	cr_assert_eq(ret, 0, "it reads back:\n%s\n%s", text, captured_logs());
	cr_assert_eq(hdp_fwd_cfg_check(again), 0, "%s", captured_logs());
	out = show(again);
	free(again);
	return out;
}

static void assert_reads_back(const struct hdp_fwd_cfg *c)
{
	char *first = show(c), *second = read_back(first);

	for (char *line = first, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		cr_assert(end);
		cr_assert_leq(end - line, HDP_INI_LINE_MAX, "a line longer than the reader takes: %.*s",
			      (int)(end - line), line);
	}
	cr_assert_str_eq(first, second, "printed, read back and printed again");
	free(first);
	free(second);
}

static const char *repeat(char c, size_t n)
{
	static char buf[200];

	cr_assert_lt(n, sizeof(buf));
	memset(buf, c, n);
	buf[n] = '\0';
	return buf;
}

/* An INI line holds 198: "metrics_file = " takes 15 of them. */
Test(fwd_config_text, every_text_value_the_parser_takes_reads_back)
{
	static const struct {
		const char *key, *value;
		bool taken;
	} cases[] = {
		{ "ctl_socket", "/run/a#b=c:d.sock", true },	/* '#' inside a value is no comment */
		{ "ctl_socket", "/run/a;b.sock", true },	/* nor is ';' after no space */
		{ "ctl_socket", "/run/a ;b.sock", false },
		{ "ctl_socket", "/run/a\t;b.sock", false },
		{ "ctl_socket", ";x", false },
		{ "ctl_socket", "/run/x.sock ", false },
		{ "ctl_socket", " /run/x.sock", false },
		{ "ctl_socket", "/run/a\nb", false },
		{ "ctl_socket", "/run/a\x7f", false },
		{ "ctl_socket", "/run/with space.sock", true },
		{ "user", "nobody", true },
		{ "huge_dir", "/dev/hugepages ; x", false },
	};

	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,b", "--ports"), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = hdp_fwd_cfg_set_global(cfg, cases[i].key, cases[i].value, "--x", 0);

		clear_logs();
		cr_assert_eq(ret == 0, cases[i].taken, "%s = '%s'", cases[i].key, cases[i].value);
		if (ret == 0) {
			cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
			assert_reads_back(cfg);
		}
	}
}

Test(fwd_config_text, a_value_at_the_line_limit_reads_back_one_past_it_is_refused)
{
	char value[256];

	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,b", "--ports"), 0);
	snprintf(value, sizeof(value), "/%s", repeat('m', HDP_INI_LINE_MAX - 15 - 1));
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "metrics_file", value, "--metrics-file", 0), 0,
		     "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
	assert_reads_back(cfg);
	strcat(value, "m");
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "metrics_file", value, "--metrics-file", 0),
		     -EINVAL);
	cr_assert(log_contains("184 characters: an INI line holds 183 after 'metrics_file = '"),
		  "%s", captured_logs());
}

Test(fwd_config_text, why_each_value_is_refused)
{
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "ctl_socket", "/run/a ;b", "--ctl", 0), -EINVAL);
	cr_assert(log_contains("--ctl '/run/a ;b': a ';' after a space starts a comment in an "
			       "INI file"), "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "ctl_socket", "/run/a ", "--ctl", 0), -EINVAL);
	cr_assert(log_contains("drops spaces at the start and end of a value"), "%s",
		  captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "huge_dir", "/a\tb", "--x", 0), -EINVAL);
	cr_assert(log_contains("a control character (byte 0x09)"), "%s", captured_logs());
}

/* 16 ports of 15-character names: 303 characters of list. */
Test(fwd_config_text, a_port_list_longer_than_a_line_is_left_to_the_sections)
{
	char list[512] = "", *text;

	for (int i = 0; i < HDP_FWD_PORTS_MAX; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s%02d:%d",
			 i ? "," : "", repeat('p', IF_NAMESIZE - 3), i, 63);
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, list, "--ports"), 0, "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
	text = show(cfg);
	cr_assert(!strstr(text, "\nports = "), "%s", text);
	cr_assert(strstr(text, "; ports: the [port:...] sections below, in order"), "%s", text);
	free(text);
	assert_reads_back(cfg);
}

/* The heading names the file: a long name, or one with a newline, must not break it. */
Test(fwd_config_text, the_heading_is_cut_to_fit_and_kept_on_its_line)
{
	char file[300], *text = NULL, *again;
	size_t len = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/etc/hdp/%s\n[global]\nmode = l2.ini", repeat('d', 190));
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,b", "--ports"), 0);
	cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
	f = open_memstream(&text, &len);
	cr_assert_eq(hdp_fwd_cfg_show(cfg, file, f), 0);
	fclose(f);
	cr_assert_leq(strchr(text, '\n') - text, HDP_INI_LINE_MAX, "%s", text);
	again = read_back(text);
	cr_assert_str_eq(again, strchr(text, '\n') + 1);
	free(again);
	free(text);
}

Test(fwd_config_text, an_exclusion_list_longer_than_a_line_is_refused)
{
	char spec[1100] = "init_exclude=";

	for (int i = 0; i < 40; i++)
		snprintf(spec + strlen(spec), sizeof(spec) - strlen(spec), "%spool%02d", i ? "," : "",
			 i);
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,b", "--ports"), 0);
	cr_assert_eq(hdp_harden_config_parse_string(&cfg->harden, spec, "--harden"), 0);
	cr_assert_eq(hdp_fwd_cfg_check(cfg), -EINVAL);
	cr_assert(log_contains("[pool:default] key 'init_exclude', value 'default,pool00,"),
		  "%s", captured_logs());
	cr_assert(log_contains("an INI line holds 183 after 'init_exclude = '"), "%s",
		  captured_logs());
}

Test(fwd_config_text, interface_names_linux_or_an_ini_file_cannot_take_are_refused)
{
	static const char *const bad[] = { "a b", "a/b", "a]b", ";a", ".", "..", "a\tb",
					   "sixteen-chars-xx" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char list[64];

		snprintf(list, sizeof(list), "%s,ok", bad[i]);
		cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, list, "--ports"), -EINVAL, "'%s'", bad[i]);
	}
	cr_assert(log_contains("'a]b' cannot be an interface name: a ']' would end its "
			       "[port:...] section's name"), "%s", captured_logs());
	cr_assert(log_contains("'sixteen-chars-xx' is longer than an interface name can be"),
		  "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a#1,b=2", "--ports"), 0, "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
	assert_reads_back(cfg);
}

/* It runs again on every SIGHUP: what it says, it would say every time. */
Test(fwd_config_text, the_check_of_a_good_configuration_says_nothing)
{
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,b,c,d", "--ports"), 0);
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "frames", "256", "--frames", 0), 0);
	cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
	cr_assert_str_eq(captured_logs(), "", "nothing logged");
}

Test(fwd_config_text, errors_after_parsing_name_where_the_key_was_set)
{
	cr_assert_eq(hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_CTL_SOCKET, "no %s", "room"), -EINVAL);
	cr_assert(log_contains("[global] key 'ctl_socket', value '' (the default): no room"),
		  "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "frames", "512", "/etc/x.ini", 7), 0);
	hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_FRAMES, "too few");
	cr_assert(log_contains("/etc/x.ini:7: [global] key 'frames', value '512': too few"), "%s",
		  captured_logs());
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a:1,b:1", "--ports"), 0);
	hdp_fwd_port_refuse(&cfg->ports[1], "gone");
	cr_assert(log_contains("--ports: port b:1: gone"), "%s", captured_logs());
}

/* The spin is printed with what it does here, and reads back: off, on, moot. */
Test(fwd_config_text, idle_spin_us_says_what_it_does_and_reads_back)
{
	static const struct {
		const char *us;
		bool busy_poll;
		const char *line;
	} cases[] = {
		{ "0", false, "idle_spin_us = 0        ; off: an idle worker sleeps in poll() at once\n" },
		{ "200", false, "idle_spin_us = 200        ; an idle worker spins this long before "
				"it sleeps\n" },
		{ "1000000", true, "idle_spin_us = 1000000        ; no effect: busy polling never "
				   "sleeps\n" },
	};

	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, "a,b", "--ports"), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text;

		cfg->busy_poll = cases[i].busy_poll;
		cr_assert_eq(hdp_fwd_cfg_set_global(cfg, "idle_spin_us", cases[i].us, "--idle-spin",
						    0), 0, "%s", captured_logs());
		cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
		text = show(cfg);
		cr_assert(strstr(text, cases[i].line), "no '%s' in\n%s", cases[i].line, text);
		free(text);
		assert_reads_back(cfg);
	}
}
