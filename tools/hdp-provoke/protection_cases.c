// SPDX-License-Identifier: BSD-3-Clause
/*
 * The cases of hdp's registered protections (redzone, quarantine,
 * shuffle): each needs its protection on (its "needs"), and is missed
 * with it off, as the catalogue's other cases are with theirs.
 */
#include "provoke.h"

#include <string.h>

/* A frame freed with the extent its owner wrote. */
static void free_written(struct hdp_pool *p, void *obj, uint32_t start, uint32_t end)
{
	struct hdp_extent ext = { start, end };

	hdp_pool_free_burst_extent(p, &obj, &ext, 1);
}

/*
 * A pointer kept past its free, written through after the next
 * allocation. Without a quarantine the next allocation is that very
 * object, and the write lands in the new packet unseen; with one, it
 * lands in a free object, and init_check finds it when the object comes
 * back.
 */
static enum verdict quarantine_stale_write(struct provoke_env *env)
{
	struct hdp_pool *p = provoke_pool(env, "frames", 256, 64);
	unsigned char *stale = hdp_pool_alloc(p), *next;

	free_written(p, stale, 0, 256);
	next = hdp_pool_alloc(p);
	((unsigned char *)hdp_deref(stale))[10] = 0x66;
	free_written(p, next, 0, 256);
	/* Round the quarantine: the stale object comes back, checked. */
	for (int i = 0; i < 40; i++)
		free_written(p, hdp_pool_alloc(p), 0, 256);
	return provoke_seen(p, HDP_V_WRITE_AFTER_FREE) ? CAUGHT : MISSED;
}

/*
 * Predict the next frame. Free a frame, allocate: a stack hands the same
 * one back every time; shuffled, 64 tries out of a cache of 32 or more
 * should not all come back to where they were freed.
 */
static enum verdict shuffle_predict_next(struct provoke_env *env)
{
	struct hdp_pool *p = provoke_pool(env, "frames", 256, 256);
	void *warm[64];
	unsigned same = 0;

	/* Fill the cache, so there is something to choose from. */
	for (int i = 0; i < 64; i++)
		warm[i] = hdp_pool_alloc(p);
	for (int i = 0; i < 64; i++)
		free_written(p, warm[i], 0, 0);
	for (int i = 0; i < 64; i++) {
		void *a = hdp_pool_alloc(p), *next;

		free_written(p, a, 0, 0);
		next = hdp_pool_alloc(p);
		same += hdp_untag(next) == hdp_untag(a);
		free_written(p, next, 0, 0);
	}
	/* Shuffled, about 64/len of them: a handful at most. */
	return same < 16 ? CAUGHT : MISSED;
}

/* Violations named @name (a registered protection's kind) the pool counted. */
static unsigned long long seen_named(struct hdp_pool *p, const char *name)
{
	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		if (strcmp(hdp_violation_name((enum hdp_violation_kind)k), name) == 0)
			return provoke_seen(p, (enum hdp_violation_kind)k);
	return 0;
}

/* A frame of 200 bytes of data, and a byte at @at (past the end) changed. */
static enum verdict redzone_write_past(struct provoke_env *env, size_t at)
{
	struct hdp_pool *p = provoke_pool(env, "frames", 2048, 8);
	unsigned char *obj;

	/* Two lives first: the window is armed from the second free on. */
	for (int life = 0; life < 2; life++) {
		obj = hdp_pool_alloc(p);
		memset((unsigned char *)hdp_deref(obj) + 100, 0x42, 100);
		free_written(p, obj, 100, 200);
	}
	/* A pool of 8: 8 more lives bring every frame round again. */
	for (int life = 0; life < 8; life++) {
		obj = hdp_pool_alloc(p);
		memset((unsigned char *)hdp_deref(obj) + 100, 0x42, 100);
		((unsigned char *)hdp_deref(obj))[at] ^= 0xff;
		free_written(p, obj, 100, 200);
	}
	return seen_named(p, "redzone_overwritten") ? CAUGHT : MISSED;
}

static enum verdict redzone_past_end(struct provoke_env *env)
{
	return redzone_write_past(env, 200);
}

static enum verdict redzone_window_end(struct provoke_env *env)
{
	return redzone_write_past(env, 200 + 63);
}

const struct provoke_case provoke_protection_cases[] = {
	{ "quarantine-stale-write",
	  "write through a pointer kept past its free, after the next allocation",
	  "quarantine=on,quarantine_depth=8,init_check_sample=1", quarantine_stale_write },
	{ "redzone-write-past-end", "store one byte past the end of a frame's data",
	  "redzone=on", redzone_past_end },
	{ "redzone-write-window-end", "store the 64th byte past the end of the data",
	  "redzone=on", redzone_window_end },
	{ "redzone-canary-write-past-end", "one byte past the end, zeroing off: the canary",
	  "redzone=on,init_on_free=off,init_check=off", redzone_past_end },
	{ "shuffle-predict-next-frame", "the frame freed last is the next one handed out",
	  "shuffle=on", shuffle_predict_next },
};

const unsigned provoke_nprotection_cases = HDP_ARRAY_SIZE(provoke_protection_cases);
