"""Where a contender's core spends its time, by stage of the forwarding
path (compare --profile): `perf record -C CPU -g` samples of the
contender's core taken from time T0 to T1 (seconds), while the sink's
count went from SINK0 to SINK1, each put in one stage by its call chain;
for each stage its share of the core and its nanoseconds of CPU per
delivered packet (share x (T1 - T0) / (SINK1 - SINK0)).

Stages, decided in this order:
  idle               the core had nothing to run (swapper, cpuidle)
  user               the contender's own user-space code
  tx_completion      freeing sent skbs: xsk_destruct_skb, sock_wfree
  next_hop_rx        the egress peer's receive (s0's XDP program, its skb
                     copy) that the kernel runs inside the sender's syscall
  rx_copy            receive into the socket or the UMEM: __xsk_rcv and its
                     allocation and copy, packet_rcv, recvmmsg's copy
  xdp                the XDP program and redirect (bpf_prog_*, xdp_do_redirect,
                     devmap transmit)
  rx_skb             the ingress NAPI's skb work around them (veth_poll:
                     copying the skb into a page-pool page for XDP, GRO,
                     freeing it)
  tx_build           building and sending skbs: __xsk_generic_xmit,
                     packet_snd, sendmmsg, veth_xmit
  sched              scheduling and waiting in poll()
  other_kernel       the rest (syscall entry and exit, timers, ...)
"""
import subprocess

STAGES = ["rx_skb", "xdp", "rx_copy", "tx_build", "tx_completion", "next_hop_rx",
          "user", "sched", "other_kernel", "idle"]

TX_COMPLETION = {"xsk_destruct_skb", "sock_wfree"}
TX = {"__xsk_generic_xmit", "xsk_sendmsg", "xsk_generic_xmit", "packet_snd",
      "packet_sendmsg", "__sys_sendmmsg", "__sys_sendto", "__sys_sendmsg",
      "dev_queue_xmit", "__dev_queue_xmit", "__dev_direct_xmit", "veth_xmit",
      "tpacket_snd"}
NAPI = {"veth_poll", "__napi_poll", "napi_threaded_poll", "net_rx_action"}
RX_COPY = {"__xsk_rcv", "xsk_rcv", "__xsk_rcv_zc", "xsk_rcv_zc", "xp_alloc",
           "xsk_flush", "__xsk_map_flush", "packet_rcv", "tpacket_rcv",
           "packet_recvmsg", "__sys_recvmmsg", "__sys_recvfrom", "skb_copy_datagram_iter",
           "__skb_datagram_iter", "xsk_recvmsg"}
XDP = {"xdp_do_redirect", "__xsk_map_redirect", "bpf_xdp_redirect_map", "xdp_do_flush",
       "__dev_flush", "dev_map_enqueue", "bq_xmit_all", "veth_xdp_xmit", "bpf_prog_run_xdp",
       "dev_map_bpf_prog_run", "xdp_master_redirect", "bpf_dispatcher_xdp_func"}
SCHED = {"__schedule", "schedule", "finish_task_switch", "do_sys_poll", "ep_poll",
         "schedule_hrtimeout_range", "schedule_hrtimeout_range_clock", "__x64_sys_poll",
         "__x64_sys_ppoll", "do_nanosleep", "futex_wait"}
IDLE = {"do_idle", "cpu_idle_poll", "default_idle", "default_idle_call", "cpuidle_idle_call",
        "acpi_idle_enter", "native_safe_halt", "pv_native_safe_halt"}


def stage_of(comm, frames):
    """frames: [(symbol, is_kernel)], leaf first."""
    syms = [s for s, _ in frames]
    if comm == "swapper" or any(s in IDLE for s in syms):
        return "idle"
    if frames and not frames[0][1]:
        return "user"
    if any(s in TX_COMPLETION for s in syms):
        return "tx_completion"
    # A NAPI poll below (rootward of) a transmit: the next hop's receive.
    for i, s in enumerate(syms):
        if s in NAPI and any(t in TX for t in syms[i + 1:]):
            return "next_hop_rx"
    if any(s in RX_COPY for s in syms):
        return "rx_copy"
    if any(s in XDP or s.startswith("bpf_prog_") for s in syms):
        return "xdp"
    if any(s in NAPI for s in syms):
        return "rx_skb"
    if any(s in TX for s in syms):
        return "tx_build"
    if any(s in SCHED for s in syms):
        return "sched"
    return "other_kernel"


def samples(path):
    out = subprocess.run(["perf", "script", "-i", path, "-F", "comm,ip,sym,dso"],
                         capture_output=True, text=True, check=True).stdout
    comm, frames = None, []
    for line in out.splitlines():
        if not line.strip():
            if comm is not None:
                yield comm, frames
            comm, frames = None, []
        elif not line[0].isspace():
            if comm is not None:
                yield comm, frames
            comm, frames = line.split()[0], []
        else:
            parts = line.split(None, 1)
            rest = parts[1] if len(parts) > 1 else ""
            sym = rest.split(" (")[0].split("+0x")[0].strip()
            frames.append((sym, "kernel" in rest or "vmlinux" in rest or "bpf" in rest))
    if comm is not None:
        yield comm, frames


def profile(path, t0, t1, sink0, sink1):
    """The stages of the samples in perf's file @path, as compare's trials
    keep them: {"samples", "seconds", "packets", "stages": {STAGE: {"share",
    "ns_per_pkt"}}}. Raises OSError or CalledProcessError when perf cannot
    read them."""
    seconds = t1 - t0
    packets = sink1 - sink0
    counts = dict.fromkeys(STAGES, 0)
    for comm, frames in samples(path):
        if comm.startswith("swapper"):
            comm = "swapper"
        counts[stage_of(comm, frames)] += 1
    total = sum(counts.values())
    result = {"samples": total, "seconds": seconds, "packets": packets, "stages": {}}
    for s in STAGES:
        share = counts[s] / total if total else 0.0
        ns = share * seconds * 1e9 / packets if packets else 0.0
        result["stages"][s] = {"share": share, "ns_per_pkt": ns}
    return result
