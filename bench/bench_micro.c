// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-bench micro and sample: the forwarder's own pipeline (descriptor
 * check, frame alloc and free through the hardened pool, macswap rewrite)
 * over in-memory rings, no kernel in the loop. Profiles are switched at
 * run time on one forwarder and interleaved trial by trial, so every
 * ratio compares figures taken side by side. Before each run the
 * forwarder goes back to the state it was made in (bench_fresh_state):
 * otherwise a chained size leaves the fill rings short and a shuffle its
 * frame order for whatever runs next. Putting it back costs about 2 ms,
 * on the same UMEM pages; a forwarder made anew would fault in new ones.
 */
#include "bench.h"

#include <hdp/fwd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <x86intrin.h>
static uint64_t cycles(void) { return __rdtsc(); }
#else
static uint64_t cycles(void) { return 0; }
#endif

static const struct bench_profile micro_profiles[] = {
	{ "off", BENCH_SPEC_OFF },
	{ "bounds", "bounds=on,bounds_lookup=fast,init_on_free=off,init_check=off,tag=off" },
	{ "bounds-tree", "bounds=on,bounds_lookup=tree,init_on_free=off,init_check=off,tag=off" },
	{ "init", "bounds=off,init_on_alloc=on,init_on_free=on,init_check=off,tag=off,init_exclude=none" },
	{ "init-used", "bounds=off,init_on_free=used,init_check=off,tag=off" },
	{ "tag-1", "bounds=off,init_on_free=off,init_check=off,tag=soft,tag_sample=1" },
	{ "tag-10", "bounds=off,init_on_free=off,init_check=off,tag=soft,tag_sample=10" },
	{ "all", "bounds=on,bounds_lookup=fast,init_on_free=used,init_check=off,tag=soft,tag_sample=10" },
	/* redzone over init-used's zeros, and with its canary where nothing zeroes. */
	{ "redzone", "bounds=off,init_on_free=used,init_check=off,tag=off,redzone=on" },
	{ "redzone-canary", "bounds=off,init_on_free=off,init_check=off,tag=off,redzone=on" },
	/* quarantine over init-used: frames held behind 256 frees. */
	{ "quarantine", "bounds=off,init_on_free=used,init_check=off,tag=off,quarantine=on" },
	/* shuffle over init-used: frames handed out from a random place in the cache. */
	{ "shuffle", "bounds=off,init_on_free=used,init_check=off,tag=off,shuffle=on" },
	/* The files as shipped: "@" names a file in configs/. */
	{ "default", "@default.ini" },
	{ "strict", "@strict.ini" },
};

static const unsigned samples[] = { 1, 2, 4, 8, 10, 16, 32, 64 };

/* ns and cycles per packet over @steps steps. */
static void run(struct hdp_fwd *f, const uint8_t *pkt, uint32_t len, unsigned steps,
		double *ns, double *cyc)
{
	uint64_t t0 = bench_now_ns(), c0 = cycles(), pkts = 0;

	for (unsigned i = 0; i < steps; i++)
		pkts += hdp_fwd_loopback_step(f, pkt, len, 64);
	*ns = (double)(bench_now_ns() - t0) / (double)pkts;
	*cyc = (double)(cycles() - c0) / (double)pkts;
}

static struct hdp_fwd *make_forwarder(struct hdp_fwd_cfg *cfg)
{
	hdp_fwd_cfg_defaults(cfg);
	cfg->mode = HDP_FWD_MACSWAP;
	if (hdp_fwd_cfg_set_ports(cfg, "a:0,b:0", "bench") || hdp_fwd_cfg_check(cfg))
		return NULL;
	return hdp_fwd_create_loopback(cfg);
}

static double s_ns[BENCH_SIZES_MAX][BENCH_PROFILES_MAX][BENCH_TRIALS_MAX];
static double s_cyc[BENCH_SIZES_MAX][BENCH_PROFILES_MAX][BENCH_TRIALS_MAX];

int bench_micro_measure(const struct bench_opts *o, const struct bench_profile *p,
			unsigned n, struct bench_sizes *sz,
			struct bench_stat ns[][BENCH_PROFILES_MAX],
			struct bench_stat cyc[][BENCH_PROFILES_MAX])
{
	static struct hdp_fwd_cfg cfg;
	static uint8_t pkt[BENCH_SIZE_MAX];
	unsigned steps = o->quick ? 3000 : 20000;
	struct hdp_fwd *f = make_forwarder(&cfg);
	bool multi_buffer;
	unsigned lost;

	if (!f)
		return -1;
	hdp_fwd_port_frames(f, 0, &sz->max_len, &multi_buffer);
	sz->frame_size = cfg.frame_size;
	for (unsigned z = 0; z < sz->n; z++)
		sz->fits[z] = sz->len[z] <= sz->max_len;
	for (unsigned t = 0; t < o->trials; t++) {
		for (unsigned z = 0; z < sz->n; z++) {
			if (!sz->fits[z])
				continue;
			bench_packet_fill(pkt, sz->len[z]);
			for (unsigned k = 0; k < n; k++) {
				/* Rotate the order each trial: no profile always goes first. */
				unsigned i = (k + t) % n;

				if (bench_fresh_state(f, o->paths->configs) ||
				    bench_apply_profile(f, p[i].spec, o->paths->configs))
					return -1;
				run(f, pkt, sz->len[z], steps / 10, &s_ns[z][i][t],
				    &s_cyc[z][i][t]);	/* warm up */
				run(f, pkt, sz->len[z], steps, &s_ns[z][i][t], &s_cyc[z][i][t]);
			}
		}
		bench_progress("micro: trial %u of %u", t + 1, o->trials);
	}
	for (unsigned z = 0; z < sz->n; z++) {
		for (unsigned i = 0; sz->fits[z] && i < n; i++) {
			bench_stat_of(s_ns[z][i], o->trials, &ns[z][i]);
			bench_stat_of(s_cyc[z][i], o->trials, &cyc[z][i]);
		}
	}
	lost = hdp_fwd_loopback_destroy(f);
	if (lost) {
		fprintf(stderr, "hdp-bench: %u frames lost by the pipeline\n", lost);
		return -1;
	}
	return 0;
}

int bench_parse_sizes(const char *list, struct bench_sizes *sz)
{
	const char *at = list ? list : "60";
	char *end;

	memset(sz, 0, sizeof(*sz));
	while (*at) {
		unsigned long len = strtoul(at, &end, 10);

		if (!bench_digits_first(at) || (*end && *end != ',') || len < 60 || len > BENCH_SIZE_MAX ||
		    sz->n == BENCH_SIZES_MAX) {
			fprintf(stderr, "hdp-bench: --size '%s': expected up to %d frame lengths "
				"from 60 to %d, e.g. 60,1500,9000\n", list, BENCH_SIZES_MAX,
				BENCH_SIZE_MAX);
			return -1;
		}
		sz->len[sz->n++] = (uint32_t)len;
		at = *end ? end + 1 : end;
	}
	return 0;
}

/* --only NAME,...: the profiles asked for, "off" always first. */
static unsigned pick_profiles(const struct bench_opts *o, struct bench_profile *out)
{
	unsigned n = 0;

	for (size_t i = 0; i < HDP_ARRAY_SIZE(micro_profiles); i++) {
		const char *name = micro_profiles[i].name;
		size_t len = strlen(name);
		const char *at = o->only;

		if (o->only && i) {
			while ((at = strstr(at, name)) &&
			       !((at == o->only || at[-1] == ',') && (!at[len] || at[len] == ',')))
				at += len;
			if (!at)
				continue;
		}
		out[n++] = micro_profiles[i];
	}
	return n;
}

/* Added ns per packet for each KiB of frame, smallest measured size to largest. */
static void report_per_kib(struct bench_report *r, const struct bench_profile *p, unsigned n,
			   const struct bench_sizes *sz, struct bench_stat ns[][BENCH_PROFILES_MAX])
{
	unsigned lo = BENCH_SIZES_MAX, hi = BENCH_SIZES_MAX, measured = 0;

	for (unsigned z = 0; z < sz->n; z++) {
		if (!sz->fits[z])
			continue;
		measured++;
		if (lo == BENCH_SIZES_MAX || sz->len[z] < sz->len[lo])
			lo = z;
		if (hi == BENCH_SIZES_MAX || sz->len[z] > sz->len[hi])
			hi = z;
	}
	if (measured < 2 || sz->len[lo] == sz->len[hi])
		return;
	bench_report_md(r, "\n### What each protection costs per byte\n\n"
			"Added ns per packet over off at each size, and per KiB of frame "
			"(%u to %u bytes); off's own row is the pipeline's (its copy of each "
			"packet into the frame, the kernel's part here, included).\n\n| profile |",
			sz->len[lo], sz->len[hi]);
	for (unsigned z = 0; z < sz->n; z++)
		if (sz->fits[z])
			bench_report_md(r, " %u B |", sz->len[z]);
	bench_report_md(r, " per KiB |\n|---|");
	for (unsigned z = 0; z < measured + 1; z++)
		bench_report_md(r, "---:|");
	bench_report_md(r, "\n");
	for (unsigned i = 0; i < n; i++) {
		double base_lo = i ? ns[lo][0].median : 0, base_hi = i ? ns[hi][0].median : 0;
		double kib = (double)(sz->len[hi] - sz->len[lo]) / 1024.0;

		bench_report_md(r, "| %s |", p[i].name);
		for (unsigned z = 0; z < sz->n; z++)
			if (sz->fits[z])
				bench_report_md(r, i ? " %+.1f |" : " %.1f |",
						ns[z][i].median - (i ? ns[z][0].median : 0));
		bench_report_md(r, i ? " %+.1f |\n" : " %.1f |\n",
				((ns[hi][i].median - base_hi) - (ns[lo][i].median - base_lo)) / kib);
	}
}

int bench_micro(const struct bench_opts *o)
{
	struct bench_profile micro[HDP_ARRAY_SIZE(micro_profiles)];
	unsigned n = pick_profiles(o, micro);
	static struct bench_stat ns[BENCH_SIZES_MAX][BENCH_PROFILES_MAX], cyc[BENCH_SIZES_MAX][BENCH_PROFILES_MAX];
	struct bench_sizes sz;
	struct bench_report r;
	char extra[64], sizes_json[1024];
	size_t used = 0;

	if (n < 2 && o->only) {
		fprintf(stderr, "hdp-bench: --only '%s': no such profile\n", o->only);
		return 2;
	}
	if (bench_parse_sizes(o->sizes, &sz))
		return 2;
	if (bench_micro_measure(o, micro, n, &sz, ns, cyc))
		return 1;
	if (bench_report_open(&r, o, "micro"))
		return 1;
	bench_report_md(&r, "## micro: the forwarding pipeline over in-memory rings\n\n"
			"Descriptor check, frame alloc and free through the UMEM pool, macswap, "
			"%s frames, bursts of 64, one core. Median of %u trials "
			"(min-max); profiles interleaved, each run from the state the "
			"forwarder is made in (fill rings full, frames in a fresh pool's order).\n\n",
			sz.n == 1 && sz.fits[0] ? (sz.len[0] == 60 ? "60-byte" : "fixed-length")
						: "fixed-length", o->trials);
	used += (size_t)snprintf(sizes_json, sizeof(sizes_json), "[");
	for (unsigned z = 0; z < sz.n; z++) {
		if (sz.n > 1 || sz.len[z] != 60)
			bench_report_md(&r, "%s### %u-byte frames\n\n", z ? "\n" : "", sz.len[z]);
		if (!sz.fits[z]) {
			bench_report_md(&r, "cannot (needs multi-buffer in fwd_loopback): the loopback "
					"carries frames of %u bytes at most.\n", sz.max_len);
			used += (size_t)snprintf(sizes_json + used, sizeof(sizes_json) - used,
						 "%s{\"size\":%u,\"cannot\":\"needs multi-buffer in "
						 "fwd_loopback (it carries %u bytes at most)\"}",
						 z ? "," : "", sz.len[z], sz.max_len);
			continue;
		}
		used += (size_t)snprintf(sizes_json + used, sizeof(sizes_json) - used,
					 "%s{\"size\":%u,\"cannot\":null}", z ? "," : "", sz.len[z]);
		bench_report_md(&r, "| profile | ns/pkt | min | max | cycles/pkt | ratio to off | added ns/pkt |\n"
				"|---|---:|---:|---:|---:|---:|---:|\n");
		for (unsigned i = 0; i < n; i++) {
			struct bench_stat *x = &ns[z][i], *off = &ns[z][0];

			bench_report_md(&r, "| %s | %.1f | %.1f | %.1f | %.0f | %.2f | %+.1f |\n",
					micro[i].name, x->median, x->min, x->max,
					cyc[z][i].median, x->median / off->median,
					x->median - off->median);
			snprintf(extra, sizeof(extra), "\"size\":%u", sz.len[z]);
			bench_report_run(&r, "hdp-fwd", micro[i].name, NULL, x, &cyc[z][i],
					 x->median / off->median, extra);
		}
	}
	snprintf(sizes_json + used, sizeof(sizes_json) - used, "]");
	bench_report_top(&r, "sizes", sizes_json);
	report_per_kib(&r, micro, n, &sz, ns);
	return bench_report_close(&r);
}

int bench_sample(const struct bench_opts *o)
{
	struct bench_profile p[HDP_ARRAY_SIZE(samples) + 1];
	char specs[HDP_ARRAY_SIZE(samples)][128], names[HDP_ARRAY_SIZE(samples)][BENCH_PROFILES_MAX];
	static struct bench_stat ns2[BENCH_SIZES_MAX][BENCH_PROFILES_MAX], cyc2[BENCH_SIZES_MAX][BENCH_PROFILES_MAX];
	struct bench_stat ns[BENCH_PROFILES_MAX], cyc[BENCH_PROFILES_MAX];
	unsigned n = HDP_ARRAY_SIZE(samples) + 1;
	struct bench_sizes sz = { .n = 1, .len = { sizeof(bench_packet) } };
	struct bench_report r;
	char extra[64];

	p[0] = micro_profiles[0];
	for (unsigned i = 0; i < HDP_ARRAY_SIZE(samples); i++) {
		snprintf(names[i], sizeof(names[i]), "tag-%u", samples[i]);
		snprintf(specs[i], sizeof(specs[i]),
			 "bounds=off,init_on_free=off,init_check=off,tag=soft,tag_sample=%u",
			 samples[i]);
		p[i + 1] = (struct bench_profile){ names[i], specs[i] };
	}
	if (bench_micro_measure(o, p, n, &sz, ns2, cyc2))
		return 1;
	memcpy(ns, ns2[0], sizeof(ns));
	memcpy(cyc, cyc2[0], sizeof(cyc));
	if (bench_report_open(&r, o, "sample"))
		return 1;
	bench_report_md(&r, "## sample: slowdown against tag_sample (micro pipeline, soft tags)\n\n"
			"The kernel's HW_TAGS KASAN on skb pages: tagging every allocation cost "
			"50 %%, one in about 10 cost 20 %%, no gain beyond.\n\n"
			"| tag_sample | ns/pkt | min | max | slowdown vs off |\n|---:|---:|---:|---:|---:|\n");
	bench_plot_begin(&r, "sample", "tag_sample", "slowdown against tags off (%)");
	for (unsigned i = 1; i < n; i++) {
		double slow = 100.0 * (ns[i].median / ns[0].median - 1.0);

		bench_report_md(&r, "| %u | %.1f | %.1f | %.1f | %+.1f %% |\n", samples[i - 1],
				ns[i].median, ns[i].min, ns[i].max, slow);
		snprintf(extra, sizeof(extra), "\"tag_sample\":%u", samples[i - 1]);
		bench_report_run(&r, "hdp-fwd", p[i].name, NULL, &ns[i], &cyc[i],
				 ns[i].median / ns[0].median, extra);
		bench_plot_point(&r, samples[i - 1], slow);
	}
	bench_report_run(&r, "hdp-fwd", "off", NULL, &ns[0], &cyc[0], 1.0, NULL);
	bench_plot_end(&r);
	if (o->out_dir)
		bench_report_md(&r, "\nEnd to end (root, dpdk-testpmd): e2e/results.md, the "
				"ratio to off for each tag_sample.\n");
	return bench_report_close(&r);
}
