// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-bench micro --stages: what a zero-copy NIC would see of hdp-fwd's
 * hardening. Per frame length, the ns a packet each protection adds
 * alone over off (or over the one it needs), against its floor measured
 * on this machine in the same run: the bytes a wipe writes or a check
 * reads, at this machine's speed for frames where the forwarder finds
 * them; the records a tag writes; for a quarantine and a shuffle, what a
 * protection that only delays or only permutes adds (bench_reuse.c).
 * Then the shipped files built up a step at a time, so that each step's
 * share of the file's cost shows.
 */
#include "bench.h"

#include <hdp/fwd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define OFF BENCH_SPEC_OFF
#define DEF_BASE "bounds=on,bounds_lookup=fast,init_on_free=used"
#define DEF_CHECK "init_check=on,init_check_sample=64,init_check_extent=head"
#define STRICT_BASE "bounds=on,init_on_alloc=off,init_on_free=on"

/* What a floor is made of; how many of each a packet takes (struct floors). */
enum floor_kind {
	FLOOR_NONE,		/* no work of its own */
	FLOOR_WIPE,		/* the bytes written, in warm frames */
	FLOOR_CHECK_HEAD,	/* the extent's first 64 B, and 1 in 64 frames whole */
	FLOOR_WIPE_READ_REST,	/* the bytes written, and the rest of each frame read cold */
	FLOOR_READ_WHOLE,	/* each frame read whole, warm */
	FLOOR_RECORDS,		/* a record read and written at alloc and at free */
	FLOOR_MEASURED,		/* a protection that does only the unavoidable part */
};

static const char *const floor_doc[] = {
	[FLOOR_NONE] = "no work beyond off's descriptor check",
	[FLOOR_WIPE] = "memset of the bytes written, frames in L2 (just written)",
	[FLOOR_CHECK_HEAD] = "read of 64 B a frame, and 1 in 64 frames whole, frames in L2",
	[FLOOR_WIPE_READ_REST] = "memset of the bytes written, and a read of the rest of "
				 "each frame from a fill-ring cycle ago (cold)",
	[FLOOR_READ_WHOLE] = "read of each frame whole, frames in L2 (just wiped)",
	[FLOOR_RECORDS] = "a 16-byte record read and written at alloc and at free, "
			  "records in a random frame order",
	[FLOOR_MEASURED] = "",
};

struct stage {
	const char *name;	/* the protection, as the files spell it */
	const char *spec;	/* it on, over... */
	const char *over;	/* ...the profile whose ns it is measured against */
	const char *over_name;
	enum floor_kind floor;
	const char *floor_spec;	/* FLOOR_MEASURED: the profile that only does the floor */
};

/* Each protection alone over off, or over what it cannot run without. */
static const struct stage stages[] = {
	{ "bounds", "bounds=on,bounds_lookup=fast,init_on_free=off,init_check=off,tag=off",
	  OFF, "off", FLOOR_NONE, NULL },
	{ "init_on_free=used", "bounds=off,init_on_free=used,init_check=off,tag=off", OFF,
	  "off", FLOOR_WIPE, NULL },
	{ "init_check (sample 64, head)",
	  "bounds=off,init_on_free=used,tag=off," DEF_CHECK,
	  "bounds=off,init_on_free=used,init_check=off,tag=off", "init_on_free=used",
	  FLOOR_CHECK_HEAD, NULL },
	{ "init_on_free=on", "bounds=off,init_on_alloc=off,init_on_free=on,init_check=off,tag=off",
	  OFF, "off", FLOOR_WIPE_READ_REST, NULL },
	{ "init_check (sample 1)",
	  "bounds=off,init_on_alloc=off,init_on_free=on,init_check=on,init_check_sample=1,tag=off",
	  "bounds=off,init_on_alloc=off,init_on_free=on,init_check=off,tag=off",
	  "init_on_free=on", FLOOR_READ_WHOLE, NULL },
	{ "tag (soft, sample 10)", OFF ",tag=soft,tag_sample=10", OFF, "off", FLOOR_RECORDS, NULL },
	{ "tag (soft, sample 1)", OFF ",tag=soft,tag_sample=1", OFF, "off", FLOOR_RECORDS, NULL },
	{ "quarantine (depth 128)", OFF ",quarantine=on,quarantine_depth=128", OFF,
	  "off", FLOOR_MEASURED, OFF ",bench_delay=128" },
	{ "shuffle", OFF ",shuffle=on", OFF, "off", FLOOR_MEASURED, OFF ",bench_permute=on" },
};

/* The shipped files a step at a time, each step as the file sets it. */
struct step {
	const char *name;
	const char *spec;
};

static const struct step default_steps[] = {
	{ "off", OFF },
	{ "+bounds (fast)", "bounds=on,bounds_lookup=fast,init_on_free=off,init_check=off,tag=off" },
	{ "+init_on_free=used", DEF_BASE ",init_check=off,tag=off" },
	{ "+init_check (64, head)", DEF_BASE "," DEF_CHECK ",tag=off" },
	{ "+tag (soft, 10)", DEF_BASE "," DEF_CHECK ",tag=soft,tag_sample=10" },
	{ "+quarantine (128)", DEF_BASE "," DEF_CHECK ",tag=soft,tag_sample=10,quarantine=on,"
			       "quarantine_depth=128" },
	{ "+shuffle", DEF_BASE "," DEF_CHECK ",tag=soft,tag_sample=10,quarantine=on,"
		      "quarantine_depth=128,shuffle=on" },
	{ "default.ini", "@default.ini" },
};

static const struct step strict_steps[] = {
	{ "off", OFF },
	{ "+bounds", "bounds=on,init_on_free=off,init_check=off,tag=off" },
	{ "+init_on_free=on", STRICT_BASE ",init_check=off,tag=off" },
	{ "+init_check (1)", STRICT_BASE ",init_check=on,init_check_sample=1,tag=off" },
	{ "+tag (soft, 1)", STRICT_BASE ",init_check=on,init_check_sample=1,tag=soft,tag_sample=1" },
	{ "strict.ini", "@strict.ini" },
};

/* Every profile measured, each spec once; the index of @spec, added if new. */
struct plan {
	struct bench_profile p[BENCH_PROFILES_MAX];
	unsigned n;
};

static unsigned plan_add(struct plan *pl, const char *spec)
{
	for (unsigned i = 0; i < pl->n; i++)
		if (strcmp(pl->p[i].spec, spec) == 0)
			return i;
	pl->p[pl->n] = (struct bench_profile){ spec, spec };
	return pl->n++;
}

static void plan_make(struct plan *pl)
{
	pl->n = 0;
	plan_add(pl, OFF);	/* first: micro's ratios are to p[0] */
	for (size_t i = 0; i < HDP_ARRAY_SIZE(stages); i++) {
		plan_add(pl, stages[i].spec);
		plan_add(pl, stages[i].over);
		if (stages[i].floor_spec)
			plan_add(pl, stages[i].floor_spec);
	}
	for (size_t i = 0; i < HDP_ARRAY_SIZE(default_steps); i++)
		plan_add(pl, default_steps[i].spec);
	for (size_t i = 0; i < HDP_ARRAY_SIZE(strict_steps); i++)
		plan_add(pl, strict_steps[i].spec);
}

/* --- Floors: this machine's speed at the bytes a protection must touch ---- */

/* Frames as the forwarder has them: @frame_size apart, the packet at +256. */
struct frames_mem {
	uint8_t *base;
	size_t count, size;
};

#define FLOOR_HEADROOM HDP_FWD_RX_HEADROOM
#define FLOOR_COLD_FRAMES 4096	/* two fill rings of 2048: a frame comes back a cycle later */
#define FLOOR_WARM_PACKETS 128	/* a burst of 64 on each of two ports */
#define FLOOR_RECORDS_N 8192	/* the UMEM's frames */

static volatile uint64_t floor_sink;

static uint64_t read_or(const uint8_t *p, size_t n)
{
	const uint64_t *w = (const uint64_t *)(const void *)p;
	uint64_t a = 0, b = 0, c = 0, d = 0;
	size_t i = 0;

	for (; i + 4 <= n / 8; i += 4) {
		a |= w[i];
		b |= w[i + 1];
		c |= w[i + 2];
		d |= w[i + 3];
	}
	for (; i < n / 8; i++)
		a |= w[i];
	return a | b | c | d;
}

/* One packet of @len in frames from @first on: its part of each (a chain's links). */
static uint32_t part_of(uint32_t len, uint32_t room, uint32_t j, uint32_t frags)
{
	return j + 1 == frags ? len - j * room : room;
}

enum floor_op { OP_WIPE, OP_READ_HEAD, OP_READ_WHOLE, OP_READ_REST, OP_RECORDS };

struct floor_run {
	const struct frames_mem *m;
	uint32_t len, room, frags;
	size_t packets;		/* packets whose frames the op cycles through */
	uint8_t (*records)[16];
	const uint32_t *order;	/* records: frame indices, random */
};

/* One pass of @op over @r's packets. */
static void floor_pass(const struct floor_run *r, enum floor_op op)
{
	uint64_t acc = 0;
	size_t frame = 0;

	for (size_t k = 0; k < r->packets; k++) {
		for (uint32_t j = 0; j < r->frags; j++, frame++) {
			uint8_t *f = r->m->base + frame * r->m->size;
			uint32_t part = part_of(r->len, r->room, j, r->frags);

			switch (op) {
			case OP_WIPE:
				memset(f + FLOOR_HEADROOM, 0, part);
				break;
			case OP_READ_HEAD:
				acc |= read_or(f + FLOOR_HEADROOM, 64);
				break;
			case OP_READ_WHOLE:
				acc |= read_or(f, r->m->size);
				break;
			case OP_READ_REST:
				acc |= read_or(f, FLOOR_HEADROOM);
				acc |= read_or(f + FLOOR_HEADROOM + (part & ~7u),
					       r->m->size - FLOOR_HEADROOM - (part & ~7u));
				break;
			case OP_RECORDS: {
				uint8_t *rec = r->records[r->order[frame % FLOOR_RECORDS_N]];

				/* alloc and free: each reads the record, then writes it */
				rec[0] = (uint8_t)(rec[0] + 1);
				rec[8] = (uint8_t)(rec[8] + rec[0]);
				break;
			}
			}
		}
	}
	__asm__ volatile("" : : "r"(r->m->base) : "memory");
	floor_sink = acc;
}

/* ns a packet of @op, the fastest of 5 rounds of at least @ms each. */
static double floor_ns(const struct floor_run *r, enum floor_op op, unsigned ms)
{
	double best = 0;

	floor_pass(r, op);	/* the working set where the op finds it */
	for (unsigned t = 0; t < 5; t++) {
		uint64_t start = bench_now_ns(), passes = 0, took;

		do {
			floor_pass(r, op);
			passes++;
		} while ((took = bench_now_ns() - start) < ms * 1000000ull);
		if (!t || (double)took / (double)(passes * r->packets) < best)
			best = (double)took / (double)(passes * r->packets);
	}
	return best;
}

/* What each kind of floor costs a packet of @len: ns, by enum floor_kind. */
struct floors {
	double ns[FLOOR_MEASURED + 1];
};

static int floors_measure(const struct bench_opts *o, uint32_t len, uint32_t frame_size,
			  struct floors *fl)
{
	static uint8_t records[FLOOR_RECORDS_N][16];
	static uint32_t order[FLOOR_RECORDS_N];
	unsigned ms = o->quick ? 3 : 20;
	struct frames_mem m = { .count = FLOOR_COLD_FRAMES, .size = frame_size };
	struct floor_run warm, cold;
	uint32_t frags = hdp_fwd_frames_for(len, frame_size);
	uint64_t x = 0x2545f4914f6cdd1dull;

	m.base = aligned_alloc(2u << 20, m.count * m.size);
	if (!m.base)
		return -1;
	madvise(m.base, m.count * m.size, MADV_HUGEPAGE);
	memset(m.base, 0, m.count * m.size);	/* every page there, and zero as wiped */
	for (uint32_t i = 0; i < FLOOR_RECORDS_N; i++)
		order[i] = i;
	for (uint32_t i = FLOOR_RECORDS_N - 1; i > 0; i--) {
		uint32_t j, t;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		j = (uint32_t)(x % (i + 1));
		t = order[i], order[i] = order[j], order[j] = t;
	}
	warm = (struct floor_run){ &m, len, hdp_fwd_frame_room(frame_size), frags,
				   FLOOR_WARM_PACKETS, records, order };
	cold = warm;
	cold.packets = FLOOR_COLD_FRAMES / frags;
	memset(fl, 0, sizeof(*fl));
	fl->ns[FLOOR_WIPE] = floor_ns(&warm, OP_WIPE, ms);
	fl->ns[FLOOR_CHECK_HEAD] = floor_ns(&warm, OP_READ_HEAD, ms) +
				   floor_ns(&warm, OP_READ_WHOLE, ms) / 64.0;
	fl->ns[FLOOR_WIPE_READ_REST] = fl->ns[FLOOR_WIPE] + floor_ns(&cold, OP_READ_REST, ms);
	fl->ns[FLOOR_READ_WHOLE] = floor_ns(&warm, OP_READ_WHOLE, ms);
	fl->ns[FLOOR_RECORDS] = 2 * floor_ns(&warm, OP_RECORDS, ms);
	free(m.base);
	return 0;
}

/* --- The report ------------------------------------------------------------ */

/* "at floor" within 1.5x of it (or within 1 ns of a floor of nothing). */
static const char *verdict(double added, double floor)
{
	if (floor < 0.5)
		return added <= 1.0 ? "at floor" : "above floor";
	return added <= 1.5 * floor ? "at floor" : "above floor";
}

static void report_stages(struct bench_report *r, struct plan *pl, uint32_t len,
			  const struct floors *fl, struct bench_stat *ns, struct bench_stat *cyc)
{
	char extra[512];

	bench_report_md(r, "Each protection alone: ns a packet over the profile it needs "
			"(off, or the init_on_free its init_check checks), against its floor "
			"measured here.\n\n| protection | over | ns added | floor | ratio | verdict "
			"| floor is |\n|---|---|---:|---:|---:|---|---|\n");
	for (size_t i = 0; i < HDP_ARRAY_SIZE(stages); i++) {
		const struct stage *s = &stages[i];
		unsigned at = plan_add(pl, s->spec), base = plan_add(pl, s->over);
		double added = ns[at].median - ns[base].median, floor;
		const char *how = floor_doc[s->floor];
		char ratio[32];

		if (s->floor == FLOOR_MEASURED) {
			floor = ns[plan_add(pl, s->floor_spec)].median - ns[0].median;
			how = strstr(s->floor_spec, "bench_delay") ?
				      "bench_delay=128: a FIFO that only delays reuse" :
				      "bench_permute: shuffle's reordering, from a table";
		} else {
			floor = fl->ns[s->floor];
		}
		floor = floor > 0 ? floor : 0;
		if (floor >= 0.5)
			snprintf(ratio, sizeof(ratio), "%.2f", added / floor);
		else
			snprintf(ratio, sizeof(ratio), "null");
		bench_report_md(r, "| %s | %s | %+.1f | %.1f | %s | %s | %s |\n", s->name,
				s->over_name, added, floor,
				floor >= 0.5 ? ratio : "-", verdict(added, floor), how);
		snprintf(extra, sizeof(extra), "\"size\":%u,\"kind\":\"stage\",\"stage\":\"%s\","
			 "\"over\":\"%s\",\"added_ns\":%.3f,\"floor_ns\":%.3f,\"floor\":\"%s\","
			 "\"ratio_to_floor\":%s,\"verdict\":\"%s\"", len, s->name,
			 s->over_name, added, floor, how, ratio, verdict(added, floor));
		bench_report_run(r, "hdp-fwd", s->spec, NULL, &ns[at], &cyc[at],
				 ns[at].median / ns[0].median, extra);
	}
}

static void report_steps(struct bench_report *r, struct plan *pl, uint32_t len,
			 const char *file, const struct step *steps, size_t n,
			 struct bench_stat *ns, struct bench_stat *cyc)
{
	double total = ns[plan_add(pl, steps[n - 2].spec)].median - ns[0].median;
	char extra[256];

	bench_report_md(r, "\n%s a step at a time (each as the file sets it; its last "
			"row is the file itself):\n\n| step | ns/pkt | ratio to off | step adds | "
			"share of the file's added |\n|---|---:|---:|---:|---:|\n", file);
	for (size_t i = 0; i < n; i++) {
		unsigned at = plan_add(pl, steps[i].spec);
		unsigned prev = plan_add(pl, steps[i ? i - 1 : 0].spec);
		bool last = i + 1 == n;
		double adds = ns[at].median - ns[prev].median;

		if (last)	/* the file: against its last step, which should be it */
			bench_report_md(r, "| %s | %.1f | %.2f | %+.1f vs. the last step | - |\n",
					steps[i].name, ns[at].median, ns[at].median / ns[0].median,
					adds);
		else
			bench_report_md(r, "| %s | %.1f | %.2f | %+.1f | %.0f %% |\n", steps[i].name,
					ns[at].median, ns[at].median / ns[0].median, adds,
					total > 0 ? 100.0 * adds / total : 0.0);
		snprintf(extra, sizeof(extra), "\"size\":%u,\"kind\":\"step\",\"file\":\"%s\","
			 "\"step\":\"%s\",\"step_adds_ns\":%.3f", len, file, steps[i].name, adds);
		bench_report_run(r, "hdp-fwd", steps[i].spec, NULL, &ns[at], &cyc[at],
				 ns[at].median / ns[0].median, extra);
	}
}

int bench_micro_stages(const struct bench_opts *o)
{
	static struct bench_stat ns[BENCH_SIZES_MAX][BENCH_PROFILES_MAX];
	static struct bench_stat cyc[BENCH_SIZES_MAX][BENCH_PROFILES_MAX];
	static struct plan pl;
	struct bench_sizes sz;
	struct bench_report r;
	struct floors fl;
	char extra[64];
	int ret = bench_reuse_register();

	if (ret) {
		fprintf(stderr, "hdp-bench: --stages: cannot register its floor protections: %s\n",
			strerror(-ret));
		return 1;
	}
	if (bench_parse_sizes(o->sizes, &sz))
		return 2;
	plan_make(&pl);
	if (bench_micro_measure(o, pl.p, pl.n, &sz, ns, cyc))
		return 1;
	if (bench_report_open(&r, o, "micro-stages"))
		return 1;
	bench_report_md(&r, "## micro --stages: what each protection adds, against its floor\n\n"
			"The pipeline over in-memory rings, as micro measures it (median of %u "
			"trials, every profile interleaved, each run from the forwarder's state "
			"as made); \"at floor\" when the added ns are at most 1.5x the floor.\n",
			o->trials);
	for (unsigned z = 0; z < sz.n; z++) {
		bench_report_md(&r, "\n### %u-byte frames\n\n", sz.len[z]);
		if (!sz.fits[z]) {
			bench_report_md(&r, "cannot: the loopback carries frames of %u bytes at "
					"most.\n", sz.max_len);
			continue;
		}
		if (floors_measure(o, sz.len[z], sz.frame_size, &fl)) {
			fprintf(stderr, "hdp-bench: --stages: no memory to measure floors in\n");
			bench_report_close(&r);
			return 1;
		}
		bench_report_md(&r, "off: %.1f ns a packet.\n\n", ns[z][0].median);
		snprintf(extra, sizeof(extra), "\"size\":%u,\"kind\":\"off\"", sz.len[z]);
		bench_report_run(&r, "hdp-fwd", "off", NULL, &ns[z][0], &cyc[z][0], 1.0, extra);
		report_stages(&r, &pl, sz.len[z], &fl, ns[z], cyc[z]);
		report_steps(&r, &pl, sz.len[z], "default.ini", default_steps,
			     HDP_ARRAY_SIZE(default_steps), ns[z], cyc[z]);
		report_steps(&r, &pl, sz.len[z], "strict.ini", strict_steps,
			     HDP_ARRAY_SIZE(strict_steps), ns[z], cyc[z]);
	}
	return bench_report_close(&r);
}
