// SPDX-License-Identifier: BSD-3-Clause
/*
 * Profiles from an INI file (libinih), and a configuration completed from
 * a file and a string at once (hdp_harden_config_from). libinih does not
 * tell its handler the line number, so the reader counts lines as it
 * hands them over.
 */
#include <hdp/log.h>
#include <hdp/profile.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "config.h"

#if HDP_HAVE_INIH
#include <ini.h>

/*
 * A configuration is a few KiB. A pipe's writer (--config <(gpg -d ...))
 * has this long to write its first byte, and each next one: a FIFO nobody
 * opens to write would otherwise hold start-up for good.
 */
#define HDP_INI_MAX_BYTES (1 << 20)
#define HDP_INI_WAIT_MS 10000
#define HDP_INI_WAIT_TEXT "10 s"

struct ini_ctx {
	struct hdp_harden_config *cfg;
	const char *path;
	FILE *f;
	int line;
	int errors;
	size_t bytes;		/* read so far: HDP_INI_MAX_BYTES at most */
	int read_error;		/* errno of a failed read: the file is refused */
	bool bad_section;	/* refused at its header: its keys are skipped */
	hdp_ini_section_fn_t other;
	void *other_ctx;
};

/* A section for a pool the application does not have: say which it has. */
static void unknown_pool(const struct ini_ctx *c, const char *section)
{
	char names[256] = "default";
	size_t used = strlen(names);

	for (unsigned i = 0; i < c->cfg->nknown; i++) {
		/* Room for ", NAME" and for ", ..." after it, or the list stops there. */
		if (used + strlen(c->cfg->known[i]) + 8 > sizeof(names)) {
			strcpy(names + used, ", ...");
			break;
		}
		used += (size_t)sprintf(names + used, ", %s", c->cfg->known[i]);
	}
	hdp_log(HDP_LOG_ERR, "%s:%d: section [%s]: no pool is called '%s' (the pools: %s)",
		c->path, c->line, section, section + 5, names);
}

/*
 * A section opens: judge its name here, where the header's line is known,
 * rather than at each key (and not at all when it has none). libinih takes
 * the name as everything between '[' and the first ']'.
 */
static void section_opens(struct ini_ctx *c, const char *section)
{
	int ret = 0;

	if (strncmp(section, "pool:", 5) == 0) {
		if (strcmp(section + 5, "default"))
			ret = hdp_harden_config_declare(c->cfg, section + 5);
		if (ret == -ENOENT)
			unknown_pool(c, section);
		else if (ret == -ENOSPC)
			hdp_log(HDP_LOG_ERR, "%s:%d: section [%s]: too many pools (%d at most)",
				c->path, c->line, section, HDP_PROFILE_POOLS_MAX);
		else if (ret)
			hdp_log(HDP_LOG_ERR, "%s:%d: section [%s]: '%s' is not a valid pool name",
				c->path, c->line, section, section + 5);
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

/* The characters libinih takes for space (isspace() in the C locale). */
#define INI_SPACE " \t\n\v\f\r"

/*
 * What follows a header's ']': libinih ignores all of it, so that
 * "[pool:umem] tag = off" would leave umem's tag as it was, unseen. Only
 * spaces and a comment may follow; anything else is refused, the section
 * with it (its keys are not applied). true if the header is clean.
 */
static bool header_ends_clean(struct ini_ctx *c, const char *name, const char *after)
{
	const char *text = after + strspn(after, INI_SPACE);
	size_t n = strlen(text);

	if (!n || *text == ';')
		return true;
	while (n && strchr(INI_SPACE, text[n - 1]))
		n--;
	hdp_log(HDP_LOG_ERR, "%s:%d: section [%s]: '%.*s' after its ']': a header line holds "
		"the header alone (and a comment after ';')", c->path, c->line, name, (int)n, text);
	c->bad_section = true;
	c->errors++;
	return false;
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
	if (header_ends_clean(c, name, end + 1))
		section_opens(c, name);
}

/*
 * Lines reach libinih through here, one at a time, so that each keeps its
 * number. A line longer than libinih's buffer would reach it in pieces
 * (the value cut short, the rest taken for a line of its own), and a NUL
 * byte would end it early for libinih while the rest of it stayed
 * unread: both are refused here, by their number, and libinih gets a
 * comment in their place. A comment (';' or '#' first, after spaces, as
 * libinih reads it) may be of any length: nothing of it is read. A
 * failed read (a directory, an I/O error) is not the end of the file: it
 * ends the parse, and the caller refuses the file rather than take what
 * came before for all of it.
 */
/* Has @fd something to read (or its writer's close) within HDP_INI_WAIT_MS? */
static bool wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	while ((n = poll(&p, 1, HDP_INI_WAIT_MS)) < 0 && errno == EINTR)
		;
	return n > 0;
}

/*
 * The next byte, or EOF. A pipe (--config <(...)) is read without
 * blocking, so that one whose writer neither writes nor closes is given
 * up after HDP_INI_WAIT_MS rather than hang the reader: start-up, or a
 * reload on hdp-fwd's main thread. A file past HDP_INI_MAX_BYTES is no
 * configuration (/dev/zero, a log given by mistake): both end the read
 * with an error, and the file is refused.
 */
static int next_byte(struct ini_ctx *c)
{
	int ch;

	while ((ch = getc(c->f)) == EOF && ferror(c->f) && errno == EAGAIN) {
		clearerr(c->f);
		if (!wait_readable(fileno(c->f))) {
			c->read_error = ETIMEDOUT;
			return EOF;
		}
	}
	if (ch == EOF && ferror(c->f))
		c->read_error = errno ? errno : EIO;
	if (ch != EOF && ++c->bytes > HDP_INI_MAX_BYTES) {
		c->read_error = EFBIG;
		return EOF;
	}
	return ch;
}

static char *counting_reader(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	int ch = EOF, len = 0, first = 0;
	bool nul = false, too_long = false;

	while ((ch = next_byte(c)) != EOF) {
		if (len < num - 2)
			str[len++] = (char)ch;
		else if (ch != '\n')
			too_long = true;
		nul |= ch == '\0';
		if (!first && ch && !strchr(INI_SPACE, ch))
			first = ch;	/* libinih's test for a comment */
		if (ch == '\n')
			break;
	}
	if (c->read_error)
		return NULL;
	if (ch == EOF && len == 0)
		return NULL;
	str[len] = '\0';
	c->line++;
	if (too_long && !nul && (first == ';' || first == '#')) {
		snprintf(str, (size_t)num, ";\n");
	} else if (nul || too_long) {
		if (nul)
			hdp_log(HDP_LOG_ERR, "%s:%d: the line holds a NUL byte", c->path, c->line);
		else
			hdp_log(HDP_LOG_ERR, "%s:%d: line longer than %d characters, the most a "
				"section or key = value line holds (a comment may be longer)",
				c->path, c->line, num - 2);
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

/*
 * Open @path to read: a regular file, a directory (whose read fails, and
 * says so), or a pipe (process substitution), which is opened without
 * blocking: a FIFO nobody has opened to write would hold open(2) for good.
 * Anything else (a device, a socket) is refused by its kind. NULL with
 * *@err set (and said) on failure.
 */
static FILE *open_config(const char *path, int *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	const char *kind = NULL;
	struct stat st;
	FILE *f;

	if (fd < 0 || fstat(fd, &st)) {
		*err = -errno;
		hdp_log(HDP_LOG_ERR, "%s: %s", path, strerror(-*err));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	/* /dev/null is an empty file; other devices and sockets are no file at all. */
	if (S_ISCHR(st.st_mode) && st.st_rdev != makedev(1, 3))
		kind = "a character device, not a configuration file";
	else if (S_ISBLK(st.st_mode))
		kind = "a block device, not a configuration file";
	else if (S_ISSOCK(st.st_mode))
		kind = "a socket, not a configuration file";
	/* Not a pipe: blocking reads, which a file never makes wait. */
	else if (!S_ISFIFO(st.st_mode) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		kind = strerror(errno);
	/*
	 * A FIFO no writer has opened reads as empty at once: wait for its
	 * first byte (or its writer's close), never take silence for a file.
	 */
	else if (S_ISFIFO(st.st_mode) && !wait_readable(fd))
		kind = "a FIFO that nobody writes to (nothing came in " HDP_INI_WAIT_TEXT ")";
	if (kind || !(f = fdopen(fd, "r"))) {
		*err = kind ? -EINVAL : -errno;
		hdp_log(HDP_LOG_ERR, "%s: cannot read it: %s", path, kind ? kind : strerror(-*err));
		close(fd);
		return NULL;
	}
	return f;
}

int hdp_harden_config_load_file(struct hdp_harden_config *cfg, const char *path,
				hdp_ini_section_fn_t other, void *ctx)
{
	struct ini_ctx c = { .path = path, .other = other, .other_ctx = ctx };
	struct hdp_harden_config *next = malloc(sizeof(*next));
	int ret;

	if (!next)
		return -ENOMEM;
	c.f = open_config(path, &ret);
	if (!c.f) {
		free(next);
		return ret;
	}
	*next = *cfg;
	c.cfg = next;
	ret = ini_parse_stream(counting_reader, &c, on_key, &c);
	fclose(c.f);
	if (c.read_error == EFBIG || c.read_error == ETIMEDOUT) {
		if (c.read_error == EFBIG)
			hdp_log(HDP_LOG_ERR, "%s: longer than %d bytes: not a configuration file",
				path, HDP_INI_MAX_BYTES);
		else
			hdp_log(HDP_LOG_ERR, "%s: cannot read it after line %d: nothing came in %s "
				"(a pipe whose writer went quiet)", path, c.line, HDP_INI_WAIT_TEXT);
		c.errors++;
	} else if (c.read_error) {
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

int hdp_harden_config_from(struct hdp_harden_config *cfg, const char *file, const char *spec,
			   const char *spec_source)
{
	cfg->any_pool = true;
	if (file && *file && hdp_harden_config_load_file(cfg, file, NULL, NULL))
		return -EINVAL;
	if (spec && *spec && hdp_harden_config_parse_string(cfg, spec, spec_source))
		return -EINVAL;
	return hdp_harden_config_validate(cfg);
}
