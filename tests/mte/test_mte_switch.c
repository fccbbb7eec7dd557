// SPDX-License-Identifier: BSD-3-Clause
/*
 * Switching keys at run time under MTE (qemu-aarch64 -cpu max), once per
 * tag check mode: a correct program keeps running whatever is switched,
 * and a handle keeps the tag it was handed out with, which its memory
 * carries once the pool's memory takes MTE tags. Checked:
 * - every ordered pair of every key's values (tag: off, auto, mte, soft),
 *   with handles held across the switch and back: copied into, copied out
 *   of, written through (hdp_deref) and freed (held_handles.c), under
 *   five profiles;
 * - a soft-tagged handle held while the memory first takes MTE tags finds
 *   its own tag there, also when it was held through tag=off with nothing
 *   else keeping records; one freed before the switch is still stale;
 * - threads that allocate, write through and free their objects while the
 *   memory takes MTE tags under them: a burst that began before the
 *   switch catches up with it before its objects leave it.
 * Each runs in a child: a tag check fault ends it, and the end of what it
 * said is shown.
 */
#include <hdp/log.h>
#include <hdp/pool.h>
#include <hdp/tag.h>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "held_handles.h"
#include "mte_tap.h"

static struct hdp_pool *pool_with(const char *name, const char *spec)
{
	static struct hdp_harden_config cfg;
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = name, .obj_size = 256, .obj_align = 16, .obj_count = 64,
		.mem = HDP_MEM_PLAIN,
	});

	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, name);
	if (!pool || hdp_harden_config_parse_string(&cfg, spec, "test") ||
	    hdp_pool_configure(pool, &cfg)) {
		fprintf(stderr, "cannot make a pool with '%s'\n", spec);
		_exit(2);
	}
	return pool;
}

static unsigned long long violations_of(struct hdp_pool *pool)
{
	struct hdp_pool_stats st;
	unsigned long long sum = 0;

	hdp_pool_stats_get(pool, &st);
	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		sum += st.harden.violations[k];
	return sum;
}

/* --- Every pair ----------------------------------------------------------- */

static const char *walk_base;

static void say_pair(const char *key, const char *a, const char *b)
{
	fprintf(stderr, "%s: %s -> %s -> %s\n", key, a, b, a);
}

/* Refused switches are expected, and their reasons would bury the pair a fault ended. */
static void warnings_only(void *ctx, enum hdp_log_level level, const char *msg)
{
	(void)ctx;
	if (level != HDP_LOG_ERR)
		fprintf(stderr, "hdp: %s\n", msg);
}

static void walk_pairs(void)
{
	struct held_walk w;

	hdp_log_set_sink(warnings_only, NULL);
	held_walk(walk_base, &w, say_pair);
	fprintf(stderr, "%u pairs, %u refused, %u went wrong%s%s\n", w.pairs, w.refused, w.failed,
		w.failed ? "; the first: " : "", w.first);
	/* An asynchronous fault comes at the next kernel entry: this one. */
	getppid();
	if (w.failed || w.refused == w.pairs)
		_exit(1);
}

/* --- One handle, the memory taking MTE tags under it ---------------------- */

/* @h's memory carries its tag; written through, read back, freed. */
static void use_after_switch(struct hdp_pool *p, char *h)
{
	char buf[64];

	if (memory_tag_of(h) != hdp_tag_of(h)) {
		fprintf(stderr, "memory tag %u under a handle of tag %u\n", memory_tag_of(h),
			hdp_tag_of(h));
		_exit(3);
	}
	memset(hdp_deref(h), 0x42, 64);
	if (hdp_pool_copy_out(p, buf, h, sizeof(buf)) || buf[63] != 0x42)
		_exit(4);
	getppid();
	hdp_pool_free(p, h);
	if (violations_of(p))
		_exit(5);
}

static void soft_handle_meets_mte(void)
{
	struct hdp_pool *p = pool_with("softmte", "tag=soft,tag_sample=1");
	char *h = hdp_pool_alloc(p);

	if (!h || !hdp_tag_of(h) || hdp_pool_set(p, "tag", "mte"))
		_exit(2);
	use_after_switch(p, h);
}

static void soft_handle_through_off_meets_mte(void)
{
	struct hdp_pool *p = pool_with("offmte", "tag=soft,tag_sample=1,init_on_free=off,"
					"init_check=off");
	char *h = hdp_pool_alloc(p);

	if (!h || !hdp_tag_of(h) || hdp_pool_set(p, "tag", "off") ||
	    hdp_pool_set(p, "tag", "mte"))
		_exit(2);
	use_after_switch(p, h);
}

/* Not a correct program: a handle freed before the switch, written after it. */
static void freed_soft_handle_after_mte(void)
{
	struct hdp_pool *p = pool_with("stale", "tag=soft,tag_sample=1,init_check=off");
	char *h = hdp_pool_alloc(p);

	if (!h || !hdp_tag_of(h))
		_exit(2);
	hdp_pool_free(p, h);
	if (hdp_pool_set(p, "tag", "mte"))
		_exit(2);
	((volatile char *)hdp_deref(h))[3] = 1;
	after_access();
}

/* --- Bursts running as the memory takes MTE tags ------------------------- */

#define RACE_ROUNDS 40
#define RACE_WORKERS 2
#define RACE_BATCH 8
#define RACE_PASSES 40

static struct hdp_pool *race_pool;
static atomic_bool race_stop;
static atomic_uint race_passes[RACE_WORKERS];

/*
 * Two batches held in turn: each is written through after the other was
 * taken, so handles live across bursts (and across the switch).
 */
static void *race_worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, n[2] = { 0 };
	void *h[2][RACE_BATCH];

	for (unsigned pass = 0; !atomic_load(&race_stop); pass++) {
		unsigned b = pass & 1;

		hdp_pool_free_burst(race_pool, h[b], n[b]);
		n[b] = hdp_pool_alloc_burst(race_pool, h[b], RACE_BATCH);
		for (unsigned k = 0; k < 2; k++)
			for (unsigned i = 0; i < n[k]; i++)
				memset(hdp_deref(h[k][i]), 0x5a, 64);
		atomic_fetch_add(&race_passes[id], 1);
	}
	getppid();
	for (unsigned k = 0; k < 2; k++)
		hdp_pool_free_burst(race_pool, h[k], n[k]);
	hdp_pool_cache_flush(race_pool);
	return NULL;
}

static void wait_passes(unsigned at_least)
{
	for (unsigned i = 0; i < RACE_WORKERS; i++)
		while (atomic_load(&race_passes[i]) < at_least)
			sched_yield();
}

/*
 * One round, in a process of its own: no thread checks tags before this
 * pool's switch (no MTE pool came before it), as in a program whose first
 * MTE pool this is.
 */
static void race_round(void)
{
	struct hdp_pool_stats st;
	pthread_t t[RACE_WORKERS];

	race_pool = pool_with("race", "tag=soft,tag_sample=1,init_on_free=on,init_check=on,"
			      "init_check_sample=1");
	for (unsigned i = 0; i < RACE_WORKERS; i++)
		pthread_create(&t[i], NULL, race_worker, (void *)(uintptr_t)i);
	wait_passes(RACE_PASSES);
	if (hdp_pool_set(race_pool, "tag", "mte"))
		_exit(2);
	for (unsigned i = 0; i < RACE_WORKERS; i++)
		wait_passes(atomic_load(&race_passes[i]) + RACE_PASSES);
	atomic_store(&race_stop, true);
	for (unsigned i = 0; i < RACE_WORKERS; i++)
		pthread_join(t[i], NULL);
	hdp_pool_stats_get(race_pool, &st);
	if (st.in_use || violations_of(race_pool)) {
		fprintf(stderr, "%llu objects not back, %llu violations\n",
			(unsigned long long)st.in_use, violations_of(race_pool));
		_exit(6);
	}
}

static void race_rounds(void)
{
	for (unsigned r = 0; r < RACE_ROUNDS; r++) {
		pid_t pid;
		int status;

		fflush(stderr);
		pid = fork();
		if (pid == 0) {
			race_round();
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "round %u of %u ended with status 0x%x\n", r + 1, RACE_ROUNDS,
				pid < 0 ? -1 : status);
			_exit(1);
		}
	}
}

int main(void)
{
	static const char *const bases[] = {
		"",
		"tag=soft",
		"tag=soft,init_on_free=off,init_check=off",
		"tag=off,init_on_free=off,init_check=off",
		"init_on_free=used,tag_sample=2,redzone=on,quarantine=on,quarantine_depth=8,"
		"shuffle=on",
	};
	enum hdp_tag_check mode = hdp_tag_check_wanted();
	char what[256];

	if (mte_tap_start())
		return 0;
	printf("1..%zu\n", sizeof(bases) / sizeof(bases[0]) + 4);
	printf("# tag check mode asked for: %s\n", hdp_tag_check_name(mode));
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		walk_base = bases[i];
		snprintf(what, sizeof(what), "handles held across every ordered pair of every key's "
			 "values and back, under '%s': copied in and out, written through, freed",
			 bases[i]);
		lives(walk_pairs, what);
	}
	lives(soft_handle_meets_mte, "a soft-tagged handle held as the memory takes MTE tags "
	      "finds its tag there, and is written through");
	lives(soft_handle_through_off_meets_mte, "so does one held through tag=off with nothing "
	      "else keeping records, then tag=mte");
	dies_when(freed_soft_handle_after_mte, SIGABRT, "violation: tag_mismatch", -1,
		  "a soft-tagged handle freed before the switch is stale after it: its write faults");
	snprintf(what, sizeof(what), "%u rounds of %u threads allocating, writing through and "
		 "freeing while the memory takes MTE tags: no fault, every object back",
		 RACE_ROUNDS, RACE_WORKERS);
	lives(race_rounds, what);
	return mte_failed ? 1 : 0;
}
