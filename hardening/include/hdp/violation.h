/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Violation reports and the policies that decide what a detected
 * memory-safety violation does: abort (the default, as the kernel's
 * usercopy_abort), drop (count it and drop what carried it), or report
 * (a rate-limited warning plus the count, then carry on).
 */
#ifndef HDP_VIOLATION_H
#define HDP_VIOLATION_H

#include <stddef.h>
#include <stdint.h>

#include <hdp/compiler.h>

enum hdp_violation_kind {
	HDP_V_FREE_FOREIGN,	/* freed pointer lies outside the pool's objects */
	HDP_V_FREE_INTERIOR,	/* freed pointer is inside an object, not its start */
	HDP_V_FREE_PAST_END,	/* freed pointer lies past the pool's last object */
	HDP_V_DOUBLE_FREE,	/* object freed while already free */
	HDP_V_INVALID_FREE,	/* freed through a stale handle: its tag is not the object's */
	HDP_V_BOUNDS_NULL,	/* copy with a NULL or near-NULL pointer */
	HDP_V_BOUNDS_WRAP,	/* copy range wraps around the address space */
	HDP_V_BOUNDS_NO_REGION,	/* copy pointer in no registered region */
	HDP_V_BOUNDS_OTHER_POOL, /* copy landed in a region other than the pool's */
	HDP_V_BOUNDS_REGION_END, /* copy runs past the end of its region */
	HDP_V_BOUNDS_OBJECT_END, /* copy runs past the end of its object */
	HDP_V_DESC_OUTSIDE,	/* descriptor address outside the pool (UMEM) */
	HDP_V_DESC_PAST_CHUNK,	/* descriptor length runs past its chunk */
	HDP_V_WRITE_AFTER_FREE,	/* a wiped free object was not zero at allocation */
	HDP_V_TAG_MISMATCH,	/* access through a pointer whose tag is not the memory's */
	HDP_V_GUARD_PAGE,	/* an access faulted in the guard around a pool's region */
	HDP_V__COUNT
};

/* Kinds from HDP_V__COUNT on belong to registered protections (protection.h). */
#define HDP_PVIOLATIONS_MAX	32
#define HDP_V_MAX		(HDP_V__COUNT + HDP_PVIOLATIONS_MAX)

enum hdp_policy {
	HDP_POLICY_ABORT = 0,
	HDP_POLICY_DROP,
	HDP_POLICY_REPORT,
};

struct hdp_violation {
	enum hdp_violation_kind kind;
	const char *pool;	/* pool the check ran for */
	const void *addr;	/* offending pointer */
	size_t offset;		/* from the pool's region base; SIZE_MAX: outside */
	size_t size;		/* object (or access) size */
	const char *detail;	/* optional extra words, may be NULL */
};

/*
 * Stable names used in reports, counters and JSON: "free_foreign", …, then
 * the registered protections' ("redzone_overwritten", …).
 */
const char *hdp_violation_name(enum hdp_violation_kind kind);

/* How many kinds there are: the built-in ones and the protections'. */
unsigned hdp_violation_kinds(void);

/* "abort", "drop" or "report". */
const char *hdp_policy_name(enum hdp_policy policy);

/* Parse a policy name; 0 or -EINVAL. */
int hdp_policy_parse(const char *name, enum hdp_policy *out);

/*
 * Format the one-line report (no trailing newline) into @buf.
 * Returns the length it wanted, as snprintf does.
 */
int hdp_violation_format(const struct hdp_violation *v, char *buf, size_t len);

/*
 * Act on a detected violation according to @policy. Under ABORT the line
 * goes to stderr with a single write(2), bypassing the log sink, and the
 * process aborts. Under REPORT it goes to the log sink as a warning, at
 * most HDP_VIOLATION_REPORTS_PER_SEC a second (the rest are counted and
 * summarised in the next line that gets through). Under DROP nothing is
 * printed: the caller counts it. Counting is the caller's job in every case.
 */
#define HDP_VIOLATION_REPORTS_PER_SEC 10
void hdp_violation_report(enum hdp_policy policy, const struct hdp_violation *v);

/*
 * "@n@unit@rest" into @buf, without stdio or locks (for a detail built in
 * a signal handler), @unit's plural when @n is not 1 ("byte" -> "bytes").
 * Returns @buf.
 */
const char *hdp_violation_count_detail(char *buf, size_t len, uint64_t n, const char *unit,
				       const char *rest);

/* The abort path on its own, for checks that have no policy to consult. */
HDP_NORETURN void hdp_violation_abort(const struct hdp_violation *v);

#endif /* HDP_VIOLATION_H */
