// SPDX-License-Identifier: BSD-3-Clause
/*
 * A protection of the application's own (hdp/protection.h): a free hook
 * that refuses an object whose first byte says it is still in use. It
 * gets a key of its own ("inuse_guard"), set like hdp's own keys, and a
 * violation kind of its own, counted in the pool's statistics. Exits 0
 * when the guarded free was refused and the plain one went through.
 *
 *   cc own_protection.c $(pkg-config --cflags --libs hdp)
 */
#include <hdp/pool.h>
#include <hdp/protection.h>

#include <stdio.h>

#define IN_USE 0xee

static uint64_t refuse_in_use(const struct hdp_protection_burst *b, void *const *objs,
			      const struct hdp_extent *ext, unsigned n)
{
	uint64_t refused = 0;

	(void)ext;
	for (unsigned i = 0; i < n; i++) {
		if (*(const unsigned char *)hdp_untag(objs[i]) == IN_USE) {
			hdp_protection_violation(b, 0, objs[i], 1, "first byte says in use");
			refused |= UINT64_C(1) << i;
		}
	}
	return refused;
}

static const struct hdp_protection_key keys[] = {
	{ "inuse_guard", HDP_VALUE_BOOL, .def = 0, .doc = "refuse freeing an object marked in use" },
};

static const struct hdp_protection_name kinds[] = {
	{ "freed_in_use", "an object marked in use was freed" },
};

static const struct hdp_protection inuse_guard = {
	.name = "inuse_guard", .doc = "the application's own free check",
	.keys = keys, .nkeys = 1, .violations = kinds, .nviolations = 1,
	.on_free = refuse_in_use,
};

int main(void)
{
	struct hdp_pool *pool;
	struct hdp_pool_stats st;
	unsigned char *a, *b;

	/* Before the first pool: the registry is fixed at first use. */
	if (hdp_protection_register(&inuse_guard))
		return 1;
	pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "guarded", .obj_size = 128, .obj_count = 64,
		.mem = HDP_MEM_PLAIN, .on_violation = HDP_POLICY_REPORT,
	});
	if (!pool || hdp_pool_set(pool, "inuse_guard", "on"))
		return 1;
	a = hdp_pool_alloc(pool);
	b = hdp_pool_alloc(pool);
	a[0] = IN_USE;
	hdp_pool_free(pool, a);		/* refused: stays the application's */
	hdp_pool_free(pool, b);		/* freed */
	hdp_pool_stats_get(pool, &st);
	printf("own_protection: %llu in use after two frees, one refused\n",
	       (unsigned long long)st.in_use);
	if (st.in_use != 1)
		return 1;
	a[0] = 0;
	hdp_pool_free(pool, a);
	hdp_pool_destroy(pool);
	return 0;
}
