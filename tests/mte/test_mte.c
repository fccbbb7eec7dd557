// SPDX-License-Identifier: BSD-3-Clause
/*
 * The MTE backend on arm64 (qemu-aarch64 -cpu max emulates it): real tag
 * instructions, real tag-check faults. A plain program printing TAP, since
 * Criterion is not available for arm64 here; cases that must die run in a
 * child and are judged by its signal and the line hdp wrote.
 */
#include <hdp/log.h>
#include <hdp/pool.h>
#include <hdp/tag.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int n, failed;

static void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++n, what);
	failed += !cond;
}

static struct hdp_pool *mte_pool(const char *name, const char *extra)
{
	static struct hdp_harden_config cfg;
	char spec[256];
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = name, .obj_size = 64, .obj_align = 16, .obj_count = 64,
		.mem = HDP_MEM_PLAIN,
	});

	snprintf(spec, sizeof(spec), "tag=mte%s%s", *extra ? "," : "", extra);
	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, name);
	if (!pool || hdp_harden_config_parse_string(&cfg, spec, "test") ||
	    hdp_pool_configure(pool, &cfg)) {
		printf("Bail out! cannot make an MTE pool (%s)\n", spec);
		exit(1);
	}
	return pool;
}

static unsigned memory_tag_of(const void *p)
{
	uintptr_t t = (uintptr_t)p;

	__asm__ volatile(".arch armv8.5-a+memtag\n\tldg %0, [%0]" : "+r"(t));
	return (unsigned)(t >> 56) & 0xf;
}

/* Run @fn in a child; it should die of @sig having written @words. */
static void dies(void (*fn)(void), int sig, const char *words, const char *what)
{
	char buf[4096] = "";
	int fds[2], status;
	ssize_t len = 0, r;
	pid_t pid;

	fflush(stdout);
	if (pipe(fds))
		exit(1);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		fn();
		_exit(0);
	}
	close(fds[1]);
	while ((r = read(fds[0], buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += r;
	buf[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == sig &&
	   (!words || strstr(buf, words)), what);
	if (!(WIFSIGNALED(status) && WTERMSIG(status) == sig))
		printf("# child ended with status 0x%x: %s\n", status, buf);
}

static void read_after_free(void)
{
	struct hdp_pool *p = mte_pool("raf", "on_violation=report");
	volatile char *obj = hdp_pool_alloc(p);

	if (!obj)
		_exit(3);
	hdp_pool_free(p, (void *)obj);
	(void)obj[0];
}

static void write_after_reuse(void)
{
	struct hdp_pool *p = mte_pool("reuse", "on_violation=report,init_check=off");
	char *old = hdp_pool_alloc(p);

	if (!old)
		_exit(3);
	hdp_pool_free(p, old);
	hdp_pool_alloc(p);
	hdp_pool_alloc(p);
	old[3] = 1;
}

static void overflow_right(void)
{
	struct hdp_pool *p = mte_pool("right", "");
	char *objs[2];

	if (hdp_pool_alloc_bulk(p, (void **)objs, 2))
		_exit(3);
	(objs[0] < objs[1] ? objs[0] : objs[1])[64] = 1;
}

static void underflow_left(void)
{
	struct hdp_pool *p = mte_pool("left", "");
	void *objs[2];
	char *right;

	if (hdp_pool_alloc_bulk(p, objs, 2))
		_exit(3);
	right = (uintptr_t)hdp_untag(objs[0]) > (uintptr_t)hdp_untag(objs[1]) ? objs[0]
										   : objs[1];
	right[-1] = 1;
}

static void plain_null_deref(void)
{
	mte_pool("null", "");
	volatile int *volatile nowhere = (int *)(uintptr_t)8;

	*nowhere = 1;
}

int main(void)
{
	struct hdp_pool *p;
	char *obj, *objs[64], buf[64];
	struct hdp_pool_stats st;
	int tagged = 0;

	if (!hdp_tag_mte_available()) {
		printf("1..0 # SKIP no MTE here: run under qemu-aarch64 -cpu max\n");
		return 0;
	}
	printf("1..14\n");
	p = mte_pool("basic", "on_violation=report");
	obj = hdp_pool_alloc(p);
	if (!obj) {
		printf("Bail out! allocation failed\n");
		return 1;
	}
	ok(hdp_tag_of(obj) != 0, "a tagged object never gets the match-all tag");
	ok(memory_tag_of(obj) == hdp_tag_of(obj), "STG gave the memory the pointer's tag");
	memcpy(obj, "hello, mte", 11);
	ok(strcmp(obj, "hello, mte") == 0, "access through the tagged pointer works");
	hdp_pool_free(p, obj);
	ok(memory_tag_of(hdp_untag(obj)) == 0, "free retags the memory to 0");
	ok(((char *)hdp_untag(obj))[0] == 0, "STZG wiped it on free in the same pass");
	ok(hdp_pool_copy_out(p, buf, obj, 8) == -EFAULT,
	   "a checked copy through a stale pointer is refused, not faulted");
	hdp_pool_free(p, obj);
	hdp_pool_stats_get(p, &st);
	ok(st.harden.violations[HDP_V_DOUBLE_FREE] == 1, "a double free is caught");
	ok(strcmp(st.harden.tag_backend, "mte") == 0, "stats name the mte backend");

	p = mte_pool("sampled", "tag_sample=4");
	for (int i = 0; i < 64; i++) {
		objs[i] = hdp_pool_alloc(p);
		tagged += hdp_tag_of(objs[i]) != 0;
	}
	ok(tagged == 16 && hdp_tag_of(objs[0]) && !hdp_tag_of(objs[1]),
	   "tag_sample=4 tags the first, then one in four");
	hdp_pool_free_burst(p, (void **)objs, 64);

	dies(read_after_free, SIGABRT, "tag_mismatch in pool 'raf'",
	     "a raw read after free faults and is reported");
	dies(write_after_reuse, SIGABRT, "MTE synchronous tag check fault",
	     "a write through an old handle after reuse faults");
	dies(overflow_right, SIGABRT, "tag_mismatch in pool 'right'",
	     "an overflow into the right neighbour faults");
	dies(underflow_left, SIGABRT, "tag_mismatch in pool 'left'",
	     "an underflow into the left neighbour faults");
	dies(plain_null_deref, SIGSEGV, NULL,
	     "a fault that is not a tag check is passed on untouched");
	return failed ? 1 : 0;
}
