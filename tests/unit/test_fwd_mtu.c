// SPDX-License-Identifier: BSD-3-Clause
/*
 * An interface's MTU that changes under a running forwarder. Packets
 * longer than the output's MTU lets out are dropped as tx_mtu on that
 * port before its TX ring (the kernel would drop them and count them only
 * in the interface's tx_dropped), one-frame packets and chains alike;
 * shorter ones still go; a raised MTU lets them go again; each change is
 * said once, with what it means for both directions. Through the real
 * burst loop of a forwarder whose rings live in memory, the test playing
 * the control loop that read the MTU.
 */
#include <criterion/criterion.h>

#include <hdp/fwd.h>

#include <string.h>

#include "fwd_support.h"
#include "support.h"

static struct hdp_fwd_cfg cfg;
static struct hdp_fwd *fwd;
static uint8_t pkt[9018];

static void make(uint32_t max_frame)
{
	hdp_fwd_cfg_defaults(&cfg);
	cfg.max_frame = max_frame;
	cfg.ring_size = 128;
	cfg.fill_size = 256;
	cfg.frames = 2048;
	fwd = loopback_forwarder(&cfg, "a,b", "on_violation=report");
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)(i * 7 + 3);
}

static struct hdp_port_stats stats(unsigned port)
{
	struct hdp_port_stats s;

	hdp_fwd_port_stats(fwd, port, &s);
	return s;
}

/* @n packets of @len bytes from port a to port b, and b's TX completed. */
static void a_to_b(uint32_t len, unsigned n)
{
	hdp_fwd_loopback_step_ports(fwd, 0, 1, pkt, len, n);
}

static unsigned occurrences(const char *text, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void no_leak(void)
{
	cr_assert_eq(hdp_fwd_loopback_destroy(fwd), 0, "every frame back in the pool");
}

TestSuite(fwd_mtu);

Test(fwd_mtu, packets_longer_than_the_outputs_mtu_are_dropped_as_tx_mtu)
{
	make(0);
	clear_logs();
	hdp_fwd_mtu_changed(fwd, "b", 1500);
	cr_assert_eq(occurrences(captured_logs(), "b: MTU now 1500: frames over 1518 bytes to "
				 "go out on it are dropped (tx_mtu)"), 1, "%s", captured_logs());
	a_to_b(3000, 20);	/* chains of two frames */
	a_to_b(1519, 20);	/* one frame, one byte over */
	cr_assert_eq(stats(1).drops[HDP_FWD_DROP_TX_MTU], 40, "%s", captured_logs());
	cr_assert_eq(stats(1).tx_packets, 0);
	cr_assert_eq(stats(0).rx_packets, 40, "received, and counted as received");
	a_to_b(1518, 20);
	a_to_b(60, 20);
	cr_assert_eq(stats(1).tx_packets, 40, "what the MTU lets out still goes");
	cr_assert_eq(stats(1).drops[HDP_FWD_DROP_TX_MTU], 40);
	cr_assert_eq(stats(0).drops[HDP_FWD_DROP_TX_MTU], 0, "counted on the output");
	cr_assert_eq(occurrences(captured_logs(), "MTU now"), 1, "said once: %s",
		     captured_logs());
	no_leak();
}

Test(fwd_mtu, raised_again_they_go_out_again)
{
	make(0);
	hdp_fwd_mtu_changed(fwd, "a", 9000);
	hdp_fwd_mtu_changed(fwd, "b", 1500);
	a_to_b(3000, 10);
	clear_logs();
	hdp_fwd_mtu_changed(fwd, "b", 9000);
	cr_assert(log_contains("info: b: MTU now 9000 (was 1500): frames of up to 9018 bytes "
			       "go out on it"), "%s", captured_logs());
	a_to_b(3000, 10);
	a_to_b(9018, 10);
	cr_assert_eq(stats(1).tx_packets, 20, "%llu sent, %llu received",
		     (unsigned long long)stats(1).tx_packets, (unsigned long long)stats(0).rx_packets);
	cr_assert_eq(stats(1).drops[HDP_FWD_DROP_TX_MTU], 10, "only those before the raise");
	no_leak();
}

Test(fwd_mtu, the_cause_is_in_the_stats_json_and_metrics)
{
	static char buf[1 << 16];

	make(0);
	hdp_fwd_mtu_changed(fwd, "b", 1500);
	a_to_b(2000, 7);
	cr_assert_gt(hdp_fwd_stats_json(fwd, buf, sizeof(buf)), 0);
	cr_assert(strstr(buf, "\"tx_mtu\":7"), "%s", buf);
	cr_assert_gt(hdp_fwd_stats_prometheus(fwd, buf, sizeof(buf)), 0);
	cr_assert(strstr(buf, ",cause=\"tx_mtu\"} 7\n"), "%s", buf);
	cr_assert_gt(hdp_fwd_stats_text(fwd, buf, sizeof(buf)), 0);
	cr_assert(strstr(buf, " tx_mtu "), "%s", buf);
	no_leak();
}

/* An MTU raised past one frame on a port bound without chains: the kernel would drop the rest. */
Test(fwd_mtu, an_mtu_raised_past_what_the_port_was_bound_for_is_said)
{
	make(1518);
	clear_logs();
	hdp_fwd_mtu_changed(fwd, "a", 9000);
	cr_assert(log_contains("warning: a: MTU now 9000: frames of up to 9018 bytes go out on "
			       "it; it takes in frames of up to 1792 bytes, as bound at start "
			       "(one frame of 2048 bytes): the kernel drops longer ones, counted "
			       "in the socket's rx_dropped, until hdp-fwd is restarted"),
		  "%s", captured_logs());
	no_leak();
}

/* An input's MTU raised past what its peer lets out: those frames will be tx_mtu drops. */
Test(fwd_mtu, an_input_raised_past_its_peers_mtu_is_said)
{
	make(0);
	hdp_fwd_mtu_changed(fwd, "b", 1500);
	clear_logs();
	hdp_fwd_mtu_changed(fwd, "a", 9000);
	cr_assert(log_contains("warning: a: MTU now 9000: frames of up to 9018 bytes go out on "
			       "it; frames over 1518 bytes it takes in are dropped on the way out "
			       "on b (tx_mtu)"), "%s", captured_logs());
	no_leak();
}
