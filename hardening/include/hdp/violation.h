/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Violation kinds, reports and the policies that decide what a detected
 * memory-safety violation does: abort (the default, as the kernel's
 * usercopy_abort), drop (count it and drop what carried it), or report
 * (a rate-limited warning plus the count, then carry on).
 */
#ifndef HDP_VIOLATION_H
#define HDP_VIOLATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdp/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The core's violation kinds, one line each and grouped by the part that
 * finds them: X(KIND, name, doc). The names are stable: reports, counters,
 * JSON and metrics use them.
 */
#define HDP_POOL_VIOLATIONS(X)                                                       \
	X(FREE_FOREIGN, free_foreign, "a freed pointer outside the pool's objects")  \
	X(FREE_INTERIOR, free_interior,                                               \
	  "a freed pointer inside an object, or in a guard gap, not an object's start") \
	X(FREE_PAST_END, free_past_end, "a freed pointer past the pool's last object") \
	X(DOUBLE_FREE, double_free, "an object freed while it was already free")     \
	X(GUARD_PAGE, guard_page, "an access faulted in a guard around or inside a pool's region")
#define HDP_BOUNDS_VIOLATIONS(X)                                                     \
	X(BOUNDS_NULL, bounds_null, "a copy with a NULL or near-NULL pointer")        \
	X(BOUNDS_WRAP, bounds_wrap, "a copy whose range wraps around the address space") \
	X(BOUNDS_NO_REGION, bounds_no_region, "a copy into or out of no registered region") \
	X(BOUNDS_OTHER_POOL, bounds_other_pool, "a copy that lands in another pool's region") \
	X(BOUNDS_REGION_END, bounds_region_end, "a copy that runs past the end of its region") \
	X(BOUNDS_OBJECT_END, bounds_object_end, "a copy that runs past the end of its object") \
	X(DESC_OUTSIDE, desc_outside, "a descriptor whose address is outside the pool") \
	X(DESC_PAST_CHUNK, desc_past_chunk, "a descriptor whose length runs past its chunk") \
	X(DESC_CHAIN_CUT, desc_chain_cut, "a descriptor chain cut off by an invalid descriptor") \
	X(DESC_CHAIN_REUSE, desc_chain_reuse, "a descriptor chain that names one frame twice") \
	X(DESC_CHAIN_LONG, desc_chain_long, "a descriptor chain longer than the kernel sends") \
	X(DESC_NOT_LENT, desc_not_lent,                                               \
	  "a descriptor handing back a frame the kernel was not handed (RX: in no fill ring; completion: not on TX)")
#define HDP_INIT_VIOLATIONS(X)                                                       \
	X(WRITE_AFTER_FREE, write_after_free, "a wiped free object was not zero at allocation")
#define HDP_TAG_VIOLATIONS(X)                                                        \
	X(TAG_MISMATCH, tag_mismatch, "an access through a pointer whose tag is not the memory's") \
	X(INVALID_FREE, invalid_free, "a free through a stale handle: its tag is not the object's")
#define HDP_CORE_VIOLATIONS(X)                                                       \
	HDP_POOL_VIOLATIONS(X) HDP_BOUNDS_VIOLATIONS(X) HDP_INIT_VIOLATIONS(X)        \
	HDP_TAG_VIOLATIONS(X)

/*
 * Kinds from HDP_V__COUNT on belong to the protections beyond the core:
 * hdp's own first, one line each (the catalogue of the parts above is
 * the core's alone), then third parties' (protection.h). A kind added at
 * the end of HDP_OWN_VIOLATIONS keeps the ABI; anywhere else it renumbers
 * those after it (docs/LIBRARY.md).
 */
#define HDP_REDZONE_VIOLATIONS(X)                                                    \
	X(REDZONE_OVERWRITTEN, redzone_overwritten,                                   \
	  "bytes past the end of a frame's data were written")
#define HDP_OWN_VIOLATIONS(X) HDP_REDZONE_VIOLATIONS(X)

enum hdp_violation_kind {
#define HDP_V_ENUM(kind, name, doc) HDP_V_##kind,
	HDP_CORE_VIOLATIONS(HDP_V_ENUM)
	HDP_V__COUNT,			/* the core's */
	HDP_V__OWN = HDP_V__COUNT - 1,
	HDP_OWN_VIOLATIONS(HDP_V_ENUM)
	HDP_V__OWN_END			/* third parties' from here */
#undef HDP_V_ENUM
};

#define HDP_PVIOLATIONS_MAX	32	/* kinds beyond the core's, hdp's own included */
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
 * hdp's own protections' ("redzone_overwritten") and third parties';
 * "unknown" past the last.
 */
HDP_API const char *hdp_violation_name(enum hdp_violation_kind kind);

/* How many kinds there are: the core's, hdp's own protections' and third parties'. */
HDP_API unsigned hdp_violation_kinds(void);

/* "abort", "drop" or "report". */
HDP_API const char *hdp_policy_name(enum hdp_policy policy);

/*
 * Format the one-line report (no trailing newline) into @buf.
 * Returns the length it wanted, as snprintf does.
 */
HDP_API int hdp_violation_format(const struct hdp_violation *v, char *buf, size_t len);

/*
 * Act on a detected violation according to @policy. Under ABORT the line
 * goes to stderr with a single write(2), bypassing the log sink, and the
 * process aborts. Under REPORT it goes to the log sink as a warning, at
 * most HDP_VIOLATION_REPORTS_PER_SEC a second (the rest are counted and
 * summarised in the next line that gets through). Under DROP nothing is
 * printed: the caller counts it. Counting is the caller's job in every case.
 */
#define HDP_VIOLATION_REPORTS_PER_SEC 10
HDP_API void hdp_violation_report(enum hdp_policy policy, const struct hdp_violation *v);

/*
 * "@n@unit@rest" into @buf, without stdio or locks (for a detail built in
 * a signal handler), @unit's plural when @n is not 1 ("byte" -> "bytes").
 * Returns @buf.
 */
HDP_API const char *hdp_violation_count_detail(char *buf, size_t len, uint64_t n, const char *unit,
					       const char *rest);

/* The abort path on its own, for checks that have no policy to consult. */
HDP_NORETURN void hdp_violation_abort(const struct hdp_violation *v);

/*
 * For hdp's SIGSEGV handlers: hand a signal that is not hdp's to @prev,
 * the handler installed before hdp's (hdp's copy of it), and leave hdp's
 * installed. A handler function is called directly with @sig, @info (the
 * signal's own siginfo_t, kept out of this header's types) and @uctx,
 * with its sa_mask and SA_NODEFER; a one-shot one (SA_RESETHAND) once,
 * @prev holding SIG_DFL after it. SIG_DFL, and SIG_IGN for a fault: the
 * default action, on the retry of a fault that @comes_again (the
 * kernel's own signal), or when the caller returns (a sent signal with
 * its own siginfo). SIG_IGN for a sent signal: nothing.
 * Async-signal-safe.
 */
struct sigaction;
HDP_API void hdp_fault_pass_on(struct sigaction *prev, int sig, void *info, void *uctx,
			       bool comes_again);

#ifdef __cplusplus
}
#endif

#endif /* HDP_VIOLATION_H */
