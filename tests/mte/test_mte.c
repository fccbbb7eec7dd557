// SPDX-License-Identifier: BSD-3-Clause
/*
 * The MTE backend on arm64 (qemu-aarch64 -cpu max emulates it): real tag
 * instructions, real tag-check faults. A plain program printing TAP, since
 * Criterion is not available for arm64 here; cases that must die run in a
 * child and are judged by its signal, the line hdp wrote, and whether the
 * child got past the bad access before it died (a flag in shared memory):
 * that is what tells a fault at the access from one delivered later.
 *
 * Run once per tag check mode (HDP_TAG_CHECK=sync|async|asymm, meson.build):
 * each case states what the mode in force catches, and when.
 */
#include <hdp/log.h>
#include <hdp/pool.h>
#include <hdp/tag.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mte_tap.h"

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

static void read_after_free(void)
{
	struct hdp_pool *p = mte_pool("raf", "on_violation=report");
	volatile char *obj = hdp_pool_alloc(p);

	if (!obj)
		_exit(3);
	hdp_pool_free(p, (void *)obj);
	(void)obj[0];
	after_access();
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
	after_access();
}

/*
 * A thread that checked nothing when it met its first MTE pool (as one
 * made before MTE was on would) reads after free: hdp gave it the mode.
 */
static void *unchecked_thread_reads(void *arg)
{
	volatile char *obj;
	struct hdp_pool *p = arg;

	prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0);
	obj = hdp_pool_alloc(p);
	if (!obj)
		_exit(3);
	hdp_pool_free(p, (void *)obj);
	(void)obj[0];
	after_access();
	return NULL;
}

static void adopted_thread(void)
{
	struct hdp_pool *p = mte_pool("adopt", "on_violation=report");
	pthread_t t;

	pthread_create(&t, NULL, unchecked_thread_reads, p);
	pthread_join(t, NULL);
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

/* No fault at all: a SIGSEGV another process sends (kill -SEGV). */
static void sent_segv(void)
{
	mte_pool("sent", "");
	kill(getpid(), SIGSEGV);
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
	char *obj, *objs[64], buf[64], words[128], what[160];
	struct hdp_pool_stats st;
	enum hdp_tag_check want, got;
	const char *why, *name;
	bool mte3;
	int tagged = 0, late_read, late_write;

	if (mte_tap_start())
		return 0;
	printf("1..20\n");
	want = hdp_tag_check_wanted();
	mte3 = (getauxval(AT_HWCAP2) & (1UL << 22)) != 0;
	p = mte_pool("basic", "on_violation=report");
	obj = hdp_pool_alloc(p);
	if (!obj) {
		printf("Bail out! allocation failed\n");
		return 1;
	}
	got = (enum hdp_tag_check)hdp_tag_check_in_force(&why);
	name = hdp_tag_check_name(want);
	printf("# wanted %s, in force %s%s%s\n", name, hdp_tag_check_name(got), *why ? ": " : "", why);
	if (want == HDP_TAG_CHECK_ASYMM && !mte3)
		ok(got == HDP_TAG_CHECK_SYNC && strstr(why, "no MTE3") && strstr(why, "checking in sync"),
		   "asymm without MTE3 falls back to sync, and says so");
	else if (want == HDP_TAG_CHECK_ASYMM)
		ok(got == HDP_TAG_CHECK_ASYMM || strstr(why, "mte_tcf_preferred"),
		   "asymm with MTE3: in force, or the CPU's preference named");
	else
		ok(got == want && !*why, "the mode asked for is the mode in force, nothing said");
	ok(hdp_tag_check_request(want == HDP_TAG_CHECK_SYNC ? HDP_TAG_CHECK_ASYNC
							    : HDP_TAG_CHECK_SYNC) == -EBUSY &&
	   hdp_tag_check_request(want) == 0,
	   "once MTE is on, another mode is refused (EBUSY), the same one taken");
	ok(hdp_tag_of(obj) != 0, "a tagged object never gets the match-all tag");
	ok(memory_tag_of(obj) == hdp_tag_of(obj), "STG gave the memory the pointer's tag");
	memcpy(obj, "hello, mte", 11);
	ok(strcmp(obj, "hello, mte") == 0, "access through the tagged pointer works");
	hdp_pool_free(p, obj);
	ok(memory_tag_of(hdp_untag(obj)) == 0, "free retags the memory to 0");
	ok(((char *)hdp_untag(obj))[0] == 0, "STZG wiped it on free in the same pass");
	ok(hdp_pool_copy_out(p, buf, obj, 8) == -EFAULT,
	   "a checked copy through a stale pointer is refused, not faulted, in any mode");
	hdp_pool_free(p, obj);
	hdp_pool_stats_get(p, &st);
	ok(st.harden.violations[HDP_V_DOUBLE_FREE] == 1, "a double free is caught");
	ok(strcmp(st.harden.tag_backend, "mte") == 0, "stats name the mte backend");
	ok(st.harden.tag_check && strcmp(st.harden.tag_check, hdp_tag_check_name(got)) == 0,
	   "stats name the mode in force");

	p = mte_pool("sampled", "tag_sample=4");
	for (int i = 0; i < 64; i++) {
		objs[i] = hdp_pool_alloc(p);
		tagged += hdp_tag_of(objs[i]) != 0;
	}
	ok(tagged == 16 && hdp_tag_of(objs[0]) && !hdp_tag_of(objs[1]),
	   "tag_sample=4 tags the first, then one in four");
	hdp_pool_free_burst(p, (void **)objs, 64);

	/*
	 * tag off with nothing else on: a frame tagged before is freed with
	 * no step left to run, and once kept its memory's tag, which the next
	 * owner's tag-0 pointer then faulted on.
	 */
	p = mte_pool("offnow", "tag_sample=1,init_on_alloc=off,init_on_free=off,init_check=off");
	obj = hdp_pool_alloc(p);
	if (!obj || hdp_pool_set(p, "tag", "off")) {
		printf("Bail out! cannot turn tag off\n");
		return 1;
	}
	hdp_pool_free(p, obj);
	ok(hdp_tag_of(obj) != 0 && memory_tag_of(hdp_untag(obj)) == 0,
	   "tag turned off with nothing else on: a tagged frame's free still resets its memory's tag");

	/* Reads stop at the access in sync and asymm; writes only in sync. */
	late_read = got == HDP_TAG_CHECK_ASYNC;
	late_write = got != HDP_TAG_CHECK_SYNC;
	snprintf(what, sizeof(what), "%s: a raw read after free is caught %s", hdp_tag_check_name(got),
		 late_read ? "later, with no address" : "at the access, pool and offset named");
	dies_when(read_after_free, SIGABRT, fault_words(got, false, "raf", words, sizeof(words)),
		  late_read, what);
	snprintf(what, sizeof(what), "%s: a raw write through an old handle after reuse is caught %s",
		 hdp_tag_check_name(got), late_write ? "later, with no address" : "at the access");
	dies_when(write_after_reuse, SIGABRT, fault_words(got, true, "reuse", words, sizeof(words)),
		  late_write, what);
	dies_when(overflow_right, SIGABRT, fault_words(got, true, "right", words, sizeof(words)), -1,
		  "an overflow into the right neighbour faults");
	dies_when(underflow_left, SIGABRT, fault_words(got, true, "left", words, sizeof(words)), -1,
		  "an underflow into the left neighbour faults");
	snprintf(what, sizeof(what), "%s: a thread that checked nothing gets the mode with its first "
		 "objects, and its raw read after free is caught", hdp_tag_check_name(got));
	dies_when(adopted_thread, SIGABRT, fault_words(got, false, "adopt", words, sizeof(words)),
		  late_read, what);
	dies_when(sent_segv, SIGSEGV, NULL, -1,
		  "a SIGSEGV another process sends is not swallowed by hdp's handler: it kills");
	dies_when(plain_null_deref, SIGSEGV, NULL, -1,
		  "a fault that is not a tag check is passed on untouched");
	return mte_failed ? 1 : 0;
}
