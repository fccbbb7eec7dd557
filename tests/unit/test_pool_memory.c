// SPDX-License-Identifier: BSD-3-Clause
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

#define HUGE_KIB 2048

TestSuite(pool_memory, .init = capture_logs);

static struct hdp_pool *make(enum hdp_mem_kind mem, const char *dir,
			     uint32_t count, unsigned flags)
{
	return hdp_pool_create(&(struct hdp_pool_params){
		.name = "mem", .obj_size = 2048, .obj_align = 2048,
		.obj_count = count, .mem = mem, .huge_dir = dir, .flags = flags,
	});
}

static void need_hugepages(long pages)
{
	long avail = hugepages_available();

	if (avail < pages)
		cr_skip_test("needs %ld free hugepages, %ld available: run as root "
			     "'echo 512 > /proc/sys/vm/nr_hugepages' (the test script does)",
			     pages, avail);
}

/* Write every object, then check what the kernel says backs the region. */
static void expect_backing(struct hdp_pool *pool, long page_kib, bool fallback)
{
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;
	struct hdp_pool_stats st;

	cr_assert_not_null(pool, "%s\n%s", strerror(errno), captured_logs());
	hdp_pool_region(pool, &lay);
	slots = hdp_pool_slots(pool);
	/* Every object of small pools; the two ends of big ones. */
	for (uint32_t i = 0; i < slots->slots; i++)
		if (slots->slots <= 4096 || i == 0 || i == slots->slots - 1)
			memset(hdp_pool_obj_at(pool, i), 0x11, slots->obj_size);
	cr_assert_eq(kernel_page_kib(lay.base), page_kib);
	cr_assert_eq(lay.page_size, (size_t)page_kib << 10);
	cr_assert_eq((uintptr_t)lay.base % lay.page_size, 0);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.huge, page_kib == HUGE_KIB);
	cr_assert_eq(st.fallback, fallback);
	cr_assert_eq(st.pages, lay.len / lay.page_size);
}

Test(pool_memory, anonymous_hugepages_back_the_region)
{
	struct hdp_pool *pool;

	need_hugepages(2);
	pool = make(HDP_MEM_HUGE_ANON, NULL, 1500, HDP_POOL_F_NO_FALLBACK);
	expect_backing(pool, HUGE_KIB, false);
	cr_assert_str_eq(hdp_mem_kind_name(HDP_MEM_HUGE_ANON), "huge-anon");
	hdp_pool_destroy(pool);
}

Test(pool_memory, auto_prefers_hugepages)
{
	struct hdp_pool *pool;
	struct hdp_pool_stats st;

	need_hugepages(1);
	pool = make(HDP_MEM_AUTO, NULL, 16, 0);
	expect_backing(pool, HUGE_KIB, false);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.mem, HDP_MEM_HUGE_ANON);
	cr_assert_str_eq(captured_logs(), "", "no warning when hugepages are there");
	hdp_pool_destroy(pool);
}

Test(pool_memory, memfd_hugepages_back_the_region)
{
	struct hdp_pool *pool;

	need_hugepages(1);
	pool = make(HDP_MEM_HUGE_MEMFD, NULL, 100, HDP_POOL_F_NO_FALLBACK);
	expect_backing(pool, HUGE_KIB, false);
	hdp_pool_destroy(pool);
}

Test(pool_memory, plain_pages_when_asked)
{
	struct hdp_pool *pool = make(HDP_MEM_PLAIN, NULL, 100, 0);

	expect_backing(pool, 4, false);
	cr_assert_str_eq(captured_logs(), "");
	hdp_pool_destroy(pool);
}

/*
 * The fallback for real: ask for more hugepages than exist, so the
 * kernel refuses the reservation and the pool must settle for plain pages.
 */
Test(pool_memory, no_free_hugepages_falls_back_to_plain_pages_with_a_warning)
{
	long pages = hugepages_beyond_any();
	uint32_t count = (uint32_t)(pages * (HUGE_KIB << 10) / 2048);
	struct hdp_pool *pool = make(HDP_MEM_AUTO, NULL, count, 0);

	expect_backing(pool, 4, true);
	cr_assert(log_contains("warning: pool 'mem': no hugepages for"), "%s",
		  captured_logs());
	cr_assert(log_contains("using 4 KiB pages"), "%s", captured_logs());
	hdp_pool_destroy(pool);
}

Test(pool_memory, no_fallback_means_enomem)
{
	long pages = hugepages_beyond_any();
	uint32_t count = (uint32_t)(pages * (HUGE_KIB << 10) / 2048);

	errno = 0;
	cr_assert_null(make(HDP_MEM_HUGE_ANON, NULL, count, HDP_POOL_F_NO_FALLBACK));
	cr_assert_eq(errno, ENOMEM);
	cr_assert(log_contains("cannot map"), "%s", captured_logs());
	cr_assert_null(hdp_pool_find("mem"), "a failed pool leaves nothing behind");
}

static char mount_dir[64];

static void mount_hugetlbfs(void)
{
	strcpy(mount_dir, "/tmp/hdp-huge-XXXXXX");
	cr_assert_not_null(mkdtemp(mount_dir));
	if (mount("hdp-test", mount_dir, "hugetlbfs", 0, "mode=0700") < 0) {
		int err = errno;

		rmdir(mount_dir);
		cr_skip_test("cannot mount hugetlbfs (%s): needs root", strerror(err));
	}
}

static void unmount_hugetlbfs(void)
{
	umount(mount_dir);
	rmdir(mount_dir);
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

Test(pool_memory, a_hugetlbfs_directory_backs_the_region_and_keeps_no_file)
{
	struct hdp_pool *pool;

	need_hugepages(1);
	mount_hugetlbfs();
	pool = make(HDP_MEM_HUGE_FILE, mount_dir, 100, HDP_POOL_F_NO_FALLBACK);
	expect_backing(pool, HUGE_KIB, false);
	cr_assert_eq(entries(mount_dir), 0, "the backing file must be unlinked");
	hdp_pool_destroy(pool);
	unmount_hugetlbfs();
}

Test(pool_memory, a_directory_that_is_not_hugetlbfs_is_an_error)
{
	errno = 0;
	cr_assert_null(make(HDP_MEM_HUGE_FILE, "/tmp", 10, 0));
	cr_assert_eq(errno, EINVAL);
	cr_assert(log_contains("huge directory /tmp is not a hugetlbfs mount"), "%s",
		  captured_logs());
	clear_logs();
	errno = 0;
	cr_assert_null(make(HDP_MEM_HUGE_FILE, "/nonexistent/hdp", 10, 0));
	cr_assert_eq(errno, ENOENT);
	cr_assert(log_contains("huge directory /nonexistent/hdp: No such file"), "%s",
		  captured_logs());
	clear_logs();
	cr_assert_null(make(HDP_MEM_HUGE_FILE, NULL, 10, 0));
	cr_assert_eq(errno, EINVAL);
	cr_assert(log_contains("needs a hugetlbfs directory"), "%s", captured_logs());
}

Test(pool_memory, region_pages_are_not_touched_at_creation)
{
	/* A large plain pool costs no resident memory until objects are used. */
	struct hdp_pool *pool = make(HDP_MEM_PLAIN, NULL, 1u << 18, 0);
	long before = meminfo("AnonPages");
	long after;

	cr_assert_not_null(pool);
	after = meminfo("AnonPages");
	cr_assert_lt(after - before, 64 << 10, "512 MiB region should not be resident");
	hdp_pool_destroy(pool);
}
