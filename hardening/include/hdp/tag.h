/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory tagging backends behind one ops table: "soft" (a shadow tag per
 * object, checked by hdp's accessors) everywhere, "mte" (arm64 Memory
 * Tagging Extension: the CPU checks every access) where the CPU and the
 * kernel offer it.
 */
#ifndef HDP_TAG_H
#define HDP_TAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdp/profile.h>

struct hdp_harden_pool;

struct hdp_tag_ops {
	const char *name;
	/* Can this backend run here? Cheap after the first call. */
	bool (*probe)(void);
	/* Prepare the pool's memory (PROT_MTE). 0 or a negative errno. */
	int (*pool_attach)(struct hdp_harden_pool *hp);
	/*
	 * Give @obj the memory tag @tag and zero its bytes [@zero_start,
	 * @zero_end), in one pass where the hardware allows (STZG; it may
	 * zero the granules around that range too).
	 */
	void (*set_tag)(struct hdp_harden_pool *hp, void *obj, unsigned tag,
			size_t zero_start, size_t zero_end);
	/*
	 * Optional: pick a tag for @obj avoiding @avoid (IRG on MTE). NULL:
	 * hdp_tag_choose().
	 */
	unsigned (*choose)(void *obj, uint64_t *rng, const unsigned *avoid,
			   unsigned n);
	/* Does the CPU itself check every access to the pool's memory? */
	bool hardware_checks;
};

extern const struct hdp_tag_ops hdp_tag_soft_ops;
extern const struct hdp_tag_ops hdp_tag_mte_ops;

/* Does this CPU and kernel support MTE for user memory? */
bool hdp_tag_mte_available(void);

/* The backend for a mode (auto: mte if available, else soft); NULL for off. */
const struct hdp_tag_ops *hdp_tag_backend(enum hdp_tag_mode mode);

/*
 * Choose a tag in 1..15 that differs from each of @avoid[0..n) (the slot's
 * previous tag, the neighbours' tags; 0 entries are ignored). @rng is a
 * per-thread xorshift state.
 */
unsigned hdp_tag_choose(uint64_t *rng, const unsigned *avoid, unsigned n);

#endif /* HDP_TAG_H */
