// SPDX-License-Identifier: BSD-3-Clause
/*
 * Profiles from an INI file (libinih). libinih does not tell its handler
 * the line number, so the reader counts lines as it hands them over.
 */
#include <hdp/log.h>
#include <hdp/profile.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#if HDP_HAVE_INIH
#include <ini.h>

struct ini_ctx {
	struct hdp_harden_config *cfg;
	const char *path;
	FILE *f;
	int line;
	int errors;
	int read_error;		/* errno of a failed read: the file is refused */
	bool bad_section;	/* refused at its header: its keys are skipped */
	hdp_ini_section_fn_t other;
	void *other_ctx;
};

/*
 * A section opens: judge its name here, where the header's line is known,
 * rather than at each key (and not at all when it has none). libinih takes
 * the name as everything between '[' and the first ']'.
 */
static void section_opens(struct ini_ctx *c, const char *section)
{
	int ret = 0;

	if (strncmp(section, "pool:", 5) == 0) {
		if (strcmp(section + 5, "default") &&
		    hdp_harden_config_declare(c->cfg, section + 5)) {
			hdp_log(HDP_LOG_ERR, "%s:%d: section [%s]: '%s' is not a valid pool name",
				c->path, c->line, section, section + 5);
			ret = -EINVAL;
		}
	} else if (c->other) {
		ret = c->other(c->other_ctx, section, NULL, NULL, c->path, c->line);
	} else {
		hdp_log(HDP_LOG_ERR, "%s:%d: section [%s]: only [pool:default] and [pool:NAME] sections are known here",
			c->path, c->line, section);
		ret = -EINVAL;
	}
	c->bad_section = ret != 0;
	c->errors += ret != 0;
}

static void section_header(struct ini_ctx *c, const char *line)
{
	char name[200];
	const char *end;
	size_t n;

	line += strspn(line, " \t");
	if (*line != '[')
		return;
	end = strchr(line + 1, ']');
	if (!end)
		return;	/* libinih calls it a syntax error */
	n = (size_t)(end - line - 1);
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, line + 1, n);
	name[n] = '\0';
	section_opens(c, name);
}

/*
 * Lines reach libinih through here, one at a time, so that each keeps its
 * number. A line longer than libinih's buffer would reach it in pieces
 * (the value cut short, the rest taken for a line of its own), and a NUL
 * byte would end it early for libinih while the rest of it stayed
 * unread: both are refused here, by their number, and libinih gets a
 * comment in their place. A failed read (a directory, an I/O error) is
 * not the end of the file: it ends the parse, and the caller refuses the
 * file rather than take what came before for all of it.
 */
static char *counting_reader(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	int ch = EOF, len = 0;
	bool nul = false, too_long = false;

	while ((ch = getc(c->f)) != EOF) {
		if (len < num - 2)
			str[len++] = (char)ch;
		else if (ch != '\n')
			too_long = true;
		nul |= ch == '\0';
		if (ch == '\n')
			break;
	}
	if (ch == EOF && ferror(c->f)) {
		c->read_error = errno ? errno : EIO;
		return NULL;
	}
	if (ch == EOF && len == 0)
		return NULL;
	str[len] = '\0';
	c->line++;
	if (nul || too_long) {
		if (nul)
			hdp_log(HDP_LOG_ERR, "%s:%d: the line holds a NUL byte", c->path, c->line);
		else
			hdp_log(HDP_LOG_ERR, "%s:%d: line longer than %d characters", c->path,
				c->line, num - 2);
		c->errors++;
		snprintf(str, (size_t)num, ";\n");
	} else {
		section_header(c, str);
	}
	return str;
}

static int on_key(void *user, const char *section, const char *key,
		  const char *value)
{
	struct ini_ctx *c = user;
	const char *pool;
	int ret;

	if (c->bad_section)
		return 1;	/* said once, at its header */
	if (strncmp(section, "pool:", 5) == 0) {
		pool = strcmp(section + 5, "default") ? section + 5 : NULL;
		ret = hdp_harden_config_set(c->cfg, false, pool, key, value, c->path,
					    c->line);
	} else if (c->other) {
		ret = c->other(c->other_ctx, section, key, value, c->path, c->line);
	} else {
		hdp_log(HDP_LOG_ERR, "%s:%d: key '%s' in no section: only [pool:default] and [pool:NAME] sections are known here",
			c->path, c->line, key);
		ret = -EINVAL;
	}
	c->errors += ret != 0;
	return 1;	/* keep going: report every error at once */
}

int hdp_harden_config_load_file(struct hdp_harden_config *cfg, const char *path,
				hdp_ini_section_fn_t other, void *ctx)
{
	struct ini_ctx c = { .path = path, .other = other, .other_ctx = ctx };
	struct hdp_harden_config *next = malloc(sizeof(*next));
	int ret;

	if (!next)
		return -ENOMEM;
	c.f = fopen(path, "re");
	if (!c.f) {
		ret = -errno;
		hdp_log(HDP_LOG_ERR, "%s: %s", path, strerror(-ret));
		free(next);
		return ret;
	}
	*next = *cfg;
	c.cfg = next;
	ret = ini_parse_stream(counting_reader, &c, on_key, &c);
	fclose(c.f);
	if (c.read_error) {
		if (c.line)
			hdp_log(HDP_LOG_ERR, "%s: cannot read it after line %d: %s", path, c.line,
				strerror(c.read_error));
		else
			hdp_log(HDP_LOG_ERR, "%s: cannot read it: %s", path,
				strerror(c.read_error));
		c.errors++;
	} else if (ret > 0) {
		hdp_log(HDP_LOG_ERR, "%s:%d: syntax error: expected [section], key = value or a comment",
			path, ret);
		c.errors++;
	} else if (ret < 0) {
		hdp_log(HDP_LOG_ERR, "%s: cannot read it", path);
		c.errors++;
	}
	if (!c.errors)
		*cfg = *next;
	free(next);
	return c.errors ? -EINVAL : 0;
}
#else
int hdp_harden_config_load_file(struct hdp_harden_config *cfg, const char *path,
				hdp_ini_section_fn_t other, void *ctx)
{
	(void)cfg;
	(void)other;
	(void)ctx;
	hdp_log(HDP_LOG_ERR, "%s: hdp was built without libinih: use --harden strings",
		path);
	return -EOPNOTSUPP;
}
#endif
