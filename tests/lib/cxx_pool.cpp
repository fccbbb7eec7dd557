// SPDX-License-Identifier: BSD-3-Clause
/*
 * A C++ application against the shared libhdp: its headers as C++17
 * sees them, a pool created, configured from a string, allocated from,
 * copied into (a copy past the end refused), freed to, its figures read.
 * Exit 0 when all hold.
 */
#include <hdp/pool.h>
#include <hdp/profile.h>

#include <cstdio>
#include <cstring>
#include <memory>

namespace {

struct pool_deleter {
	void operator()(hdp_pool *p) const { hdp_pool_destroy(p); }
};

struct config_deleter {
	void operator()(hdp_harden_config *c) const { hdp_harden_config_free(c); }
};

int fail(const char *what)
{
	std::fprintf(stderr, "cxx_pool: %s\n", what);
	return 1;
}

} // namespace

int main()
{
	// On the heap, through the library: its size is none of this program's business.
	std::unique_ptr<hdp_harden_config, config_deleter> cfg(hdp_harden_config_new());
	hdp_pool_params params{};
	params.name = "cxx";
	params.obj_size = 128;
	params.obj_count = 64;
	params.mem = HDP_MEM_PLAIN;
	params.on_violation = HDP_POLICY_REPORT;
	std::unique_ptr<hdp_pool, pool_deleter> pool(hdp_pool_create(&params));
	if (!pool) {
		std::perror("cxx_pool: hdp_pool_create");
		return 1;
	}

	if (!cfg)
		return fail("hdp_harden_config_new gave nothing");
	if (hdp_harden_config_declare(cfg.get(), "cxx") ||
	    hdp_harden_config_parse_string(cfg.get(), "bounds=on,init_on_alloc=on,init_on_free=on,"
					   "on_violation=report", "cxx_pool") ||
	    hdp_pool_configure(pool.get(), cfg.get()))
		return fail("the profile was refused");

	void *obj = hdp_pool_alloc(pool.get());
	if (!obj)
		return fail("hdp_pool_alloc gave nothing");
	char src[512];
	std::memset(src, 'x', sizeof(src));
	if (hdp_pool_copy_in(pool.get(), obj, src, 128) != 0)
		return fail("a copy of 128 bytes into a 128-byte object was refused");
	if (hdp_pool_copy_in(pool.get(), obj, src, sizeof(src)) == 0)
		return fail("a copy of 512 bytes into a 128-byte object was not refused");
	char back[128] = {};
	if (hdp_pool_copy_out(pool.get(), back, obj, sizeof(back)) != 0 ||
	    std::memcmp(back, src, sizeof(back)) != 0)
		return fail("the object does not read back what was copied in");
	hdp_pool_free(pool.get(), obj);

	hdp_pool_stats st;
	hdp_pool_stats_get(pool.get(), &st);
	char text[8192];
	if (hdp_pool_stats_json(&st, text, sizeof(text)) < 0)
		return fail("hdp_pool_stats_json failed");
	std::printf("cxx_pool: allocs %llu, frees %llu, bounds_object_end %llu\n",
		    static_cast<unsigned long long>(st.allocs),
		    static_cast<unsigned long long>(st.frees),
		    static_cast<unsigned long long>(st.harden.violations[HDP_V_BOUNDS_OBJECT_END]));
	if (st.allocs != 1 || st.frees != 1 || st.in_use != 0 ||
	    st.harden.violations[HDP_V_BOUNDS_OBJECT_END] != 1 ||
	    !std::strstr(text, "\"name\":\"cxx\""))
		return fail("the pool's figures are not what was done");
	return 0;
}
