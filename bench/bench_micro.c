// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-bench micro and sample: the forwarder's own pipeline (descriptor
 * check, frame alloc and free through the hardened pool, macswap rewrite)
 * over in-memory rings, no kernel in the loop. Profiles are switched at
 * run time on one forwarder and interleaved trial by trial, so every
 * ratio compares figures taken side by side.
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
	{ "off", "bounds=off,init_on_free=off,init_check=off,tag=off" },
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

/* A 60-byte Ethernet/IPv4/UDP frame, the size the end-to-end runs use. */
const uint8_t bench_packet[60] = {
	0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
	0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17, 0, 0, 198, 18, 0, 1, 198, 18, 0, 2,
	0, 9, 0, 9, 0, 26, 0, 0,
};

/* [global] and [port:…] of a shipped file are hdp-fwd's, not ours. */
static int other_section(void *ctx, const char *section, const char *key,
			 const char *value, const char *file, int line)
{
	(void)ctx, (void)section, (void)key, (void)value, (void)file, (void)line;
	return 0;
}

int bench_apply_profile(struct hdp_fwd *f, const char *spec, const char *configs)
{
	static struct hdp_harden_config cfg;
	char path[BENCH_PATH_MAX + 64];

	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, HDP_FWD_UMEM_POOL);
	if (spec[0] == '@') {
		if (snprintf(path, sizeof(path), "%s/%s", configs, spec + 1) >= (int)sizeof(path))
			return -1;
		if (hdp_harden_config_load_file(&cfg, path, other_section, NULL))
			return -1;
	} else if (hdp_harden_config_parse_string(&cfg, spec, "bench")) {
		return -1;
	}
	return hdp_pool_configure(hdp_fwd_pool(f), &cfg) ? -1 : 0;
}

/* ns and cycles per packet over @steps steps. */
static void run(struct hdp_fwd *f, unsigned steps, double *ns, double *cyc)
{
	uint64_t t0 = bench_now_ns(), c0 = cycles(), pkts = 0;

	for (unsigned i = 0; i < steps; i++)
		pkts += hdp_fwd_loopback_step(f, bench_packet, sizeof(bench_packet), 64);
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

/* Measure @n profiles interleaved; stats into @ns and @cyc per profile. */
static int measure(const struct bench_opts *o, const struct bench_profile *p,
		   unsigned n, struct bench_stat *ns, struct bench_stat *cyc)
{
	static struct hdp_fwd_cfg cfg;
	double s_ns[16][BENCH_TRIALS_MAX], s_cyc[16][BENCH_TRIALS_MAX];
	unsigned steps = o->quick ? 3000 : 20000;
	struct hdp_fwd *f = make_forwarder(&cfg);
	unsigned lost;

	if (!f)
		return -1;
	for (unsigned t = 0; t < o->trials; t++) {
		for (unsigned k = 0; k < n; k++) {
			/* Rotate the order each trial: no profile always goes first. */
			unsigned i = (k + t) % n;

			if (bench_apply_profile(f, p[i].spec, o->paths->configs))
				return -1;
			run(f, steps / 10, &s_ns[i][t], &s_cyc[i][t]);	/* warm up */
			run(f, steps, &s_ns[i][t], &s_cyc[i][t]);
		}
		bench_progress("micro: trial %u of %u", t + 1, o->trials);
	}
	for (unsigned i = 0; i < n; i++) {
		bench_stat_of(s_ns[i], o->trials, &ns[i]);
		bench_stat_of(s_cyc[i], o->trials, &cyc[i]);
	}
	lost = hdp_fwd_loopback_destroy(f);
	if (lost) {
		fprintf(stderr, "hdp-bench: %u frames lost by the pipeline\n", lost);
		return -1;
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

int bench_micro(const struct bench_opts *o)
{
	struct bench_profile micro[HDP_ARRAY_SIZE(micro_profiles)];
	unsigned n = pick_profiles(o, micro);
	struct bench_stat ns[16], cyc[16];
	struct bench_report r;

	if (o->threads)
		return bench_micro_threads(o);

	if (n < 2 && o->only) {
		fprintf(stderr, "hdp-bench: --only '%s': no such profile\n", o->only);
		return 2;
	}
	if (measure(o, micro, n, ns, cyc))
		return 1;
	if (bench_report_open(&r, o, "micro"))
		return 1;
	bench_report_md(&r, "## micro: the forwarding pipeline over in-memory rings\n\n"
			"Descriptor check, frame alloc and free through the UMEM pool, macswap, "
			"60-byte frames, bursts of 64, one core. Median of %u trials "
			"(min-max); profiles interleaved.\n\n"
			"| profile | ns/pkt | min | max | cycles/pkt | ratio to off | added ns/pkt |\n"
			"|---|---:|---:|---:|---:|---:|---:|\n", o->trials);
	for (unsigned i = 0; i < n; i++) {
		bench_report_md(&r, "| %s | %.1f | %.1f | %.1f | %.0f | %.2f | %+.1f |\n",
				micro[i].name, ns[i].median, ns[i].min, ns[i].max,
				cyc[i].median, ns[i].median / ns[0].median,
				ns[i].median - ns[0].median);
		bench_report_run(&r, "hdp-fwd", micro[i].name, NULL, &ns[i],
				 &cyc[i], ns[i].median / ns[0].median, NULL);
	}
	return bench_report_close(&r);
}

int bench_sample(const struct bench_opts *o)
{
	struct bench_profile p[HDP_ARRAY_SIZE(samples) + 1];
	char specs[HDP_ARRAY_SIZE(samples)][128], names[HDP_ARRAY_SIZE(samples)][16];
	struct bench_stat ns[16], cyc[16];
	unsigned n = HDP_ARRAY_SIZE(samples) + 1;
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
	if (measure(o, p, n, ns, cyc))
		return 1;
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
