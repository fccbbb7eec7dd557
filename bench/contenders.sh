#!/bin/bash
# A library, sourced, not run (it has a #! line for the tools that judge
# an executable file by it: under libexec every file is executable).
# shellcheck shell=bash
# What hdp-bench compare and latency share: where the programs are, the
# contenders (how each starts, is checked and is stopped), the placement of
# f0's receive work, and why a program stopped. Sourced by both, with
# $here (the scripts' directory), $name (the topology's namespaces) and
# $work (a scratch directory) set, and $me the caller's name for messages.
# From the source tree: programs in BUILD_DIR (default: build/), profiles in
# configs/. Installed (hdp-bench sets HDP_BIN_DIR and HDP_CONFIG_DIR): the
# programs in one directory, the helpers next to the scripts.
if [ -n "${HDP_BIN_DIR:-}" ]; then
	configs=${HDP_CONFIG_DIR:?HDP_CONFIG_DIR names the installed profiles}
	topology=$here/topology
	prog() { echo "$HDP_BIN_DIR/$1"; }
else
	top=$(cd "$here/.." && pwd)
	build=${BUILD_DIR:-$top/build}
	configs=$top/configs
	topology=$top/scripts/topology
	prog() { case $1 in hdp-fwd) echo "$build/dataplane/$1" ;; *) echo "$build/tools/$1/$1" ;; esac; }
fi

# --out DIR: made, written to once and every output name judged before a
# run of many minutes rather than after it (a file or a read-only place in
# its way lost the run; a link or a FIFO there must not take root's
# results anywhere, or hang them): REPORT --prepare DIR [ARGS], REPORT
# being the script that writes the results (bench_out.py says how).
out_dir_ready() {	# report dir [args...]
	python3 "$here/$1" --prepare "${@:2}" || exit 2
}

profile_spec() {
	case $1 in
	off|off-again) echo "bounds=off,init_on_free=off,init_check=off,tag=off" ;;
	bounds) echo "bounds=on,init_on_free=off,init_check=off,tag=off" ;;
	bounds-tree) echo "bounds=on,bounds_lookup=tree,init_on_free=off,init_check=off,tag=off" ;;
	init) echo "bounds=off,init_on_alloc=on,init_on_free=on,init_check=off,tag=off,init_exclude=none" ;;
	init-used) echo "bounds=off,init_on_free=used,init_check=off,tag=off" ;;
	tag-*) echo "bounds=off,init_on_free=off,init_check=off,tag=soft,tag_sample=${1#tag-}" ;;
	all) echo "bounds=on,init_on_free=used,init_check=off,tag=soft,tag_sample=10" ;;
	redzone) echo "bounds=off,init_on_free=used,init_check=off,tag=off,redzone=on" ;;
	redzone-canary) echo "bounds=off,init_on_free=off,init_check=off,tag=off,redzone=on" ;;
	quarantine) echo "bounds=off,init_on_free=used,init_check=off,tag=off,quarantine=on" ;;
	shuffle) echo "bounds=off,init_on_free=used,init_check=off,tag=off,shuffle=on" ;;
	default) echo "" ;;
	strict) echo "bounds=on,init_on_free=on,init_check=on,tag=soft,tag_sample=1" ;;
	*) return 1 ;;
	esac
}

# hdp-PROFILE[-busy][+KEY=VALUE,...]: default and strict are the shipped
# files as they are; the others are --harden profiles on top of default.ini
# (with drop, so that no contender stops); -busy adds --busy-poll; -spin
# adds --idle-spin $spin_us (200 unless the caller says); +...
# adds overrides, for experiments (e.g. hdp-default+tag_sample=1+init_check_sample=16).
hdp_args() {
	local c=${1#hdp-} extra=
	case $c in *+*) extra=${c#*+}; extra=${extra//+/,}; c=${c%%+*} ;; esac
	case $c in *-busy) c=${c%-busy}; echo --busy-poll ;; esac
	case $c in *-spin) c=${c%-spin}; printf '%s\n' --idle-spin "${spin_us:-200}" ;; esac
	case $c in
	default|strict) printf '%s\n' --config "$configs/$c.ini" ;;
	*) printf '%s\n' --config "$configs/default.ini" --harden \
		"$(profile_spec "$c")${spec_sep}pool.umem.on_violation=drop${extra:+,$extra}"
	   return ;;
	esac
	[ -n "$extra" ] && printf '%s\n' --harden "$extra"
	return 0
}

# hdp-fwd's options for an hdp-* or ini:PATH contender (ini: the file as it is).
fwd_base=(--ports f0,f1 --cores 1 --ctl none --stats-interval 0)
fwd_args() {
	case $1 in
	ini:*) printf '%s\n' --config "${1#ini:}" ;;
	*) hdp_args "$1" ;;
	esac
}

is_busy() { case $1 in hdp-*-busy|hdp-*-busy+*) return 0 ;; esac; return 1; }

# Replaces the calling (background) shell with CMD in the forwarder's
# namespace. exec: the background PID must be the contender itself, or
# signals miss it. setsid: a session of its own, as a service manager or a
# login gives it. With autogroups (the default) a session is a scheduling
# group: in the generator's, busy on CPU 0, the contender's threads had a
# third of CPU 1 against the NAPI thread instead of half. No fork: the
# caller is not a process group leader (no job control in a script).
exec_in_fwd() {
	exec setsid ip netns exec "$name-fwd" "$@"
}

start_contender() {
	local c=$1 args
	case $c in
	hdp-*|ini:*) mapfile -t args < <(fwd_args "$c")
		exec_in_fwd "$(prog hdp-fwd)" "${fwd_base[@]}" "${args[@]}" ;;
	kernel-xdp) exec_in_fwd taskset -c 1 "$(prog hdp-xdp-redirect)" --in f0 --out f1 ;;
	testpmd) exec_in_fwd dpdk-testpmd --lcores '0@1,1@1' --in-memory --no-pci \
			--vdev net_af_xdp0,iface=f0 --vdev net_af_xdp1,iface=f1 -- \
			--forward-mode=io --total-num-mbufs 32768 --stats-period 100 --auto-start ;;
	kernel-socket*) exec_in_fwd taskset -c 1 "$(prog hdp-sockfwd)" --a f0 --b f1 ;;
	bridge) exec_in_fwd sh -c 'ip link add br0 type bridge &&
			ip link set f0 master br0 && ip link set f1 master br0 &&
			ip link set br0 up && exec sleep 3600' ;;
	*) echo "$me: unknown contender '$c'" >&2; return 1 ;;
	esac
}

stop_pids() {	# SIGINT, then SIGKILL after 3 s
	kill -INT "$@" 2>/dev/null
	for _ in $(seq 30); do
		kill -0 "$@" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$@" 2>/dev/null
	wait "$@" 2>/dev/null
}

cpu_ticks() {	# -> "cpu0: user sys softirq; cpu1: ..." as 6 numbers
	awk '$1 == "cpu0" || $1 == "cpu1" { printf "%d %d %d ", $2 + $3, $4, $8 }' /proc/stat
}

# Why a program stopped, in its own words: hdp's last error line, the
# kernel's message that libbpf passes on, DPDK's cause; else its last line
# that says error.
reason_of() {	# FILE
	sed -e 's/^[[:space:]]*//' -e 's/^libbpf: //' "$1" | awk '
		/^(hdp-[a-z-]+: |hdp: error: )/ { hdp = $0 }
		/^Kernel error message: / && !kernel { kernel = $0 }
		/^Cause: / { cause = $0 }
		/[Ee]rror/ { err = $0 }
		END {
			n = split(hdp "\n" kernel "\n" cause, parts, "\n")
			for (i = 1; i <= n; i++)
				if (parts[i] != "")
					out = out (out == "" ? "" : "; ") parts[i]
			print out == "" ? err : out
		}'
}

# What the bench knows about a reason that the program does not say.
explain() {	# CONTENDER REASON MTU
	local why=$2
	case $2 in *"out of range"*|*"MTU is too large"*)
		why+=" [MTU $3: veth takes only an XDP program marked for fragments (xdp.frags)]" ;; esac
	case $1 in testpmd) [ "$3" -gt 1500 ] &&
		why+=" [net_af_xdp in DPDK 22.11 has no multi-buffer: a frame must fit one 4 KiB UMEM chunk, about 3.5 KiB]" ;; esac
	echo "$why"
}

# f0's NAPI as a kernel thread on CPU 1. Only the threads that appear when
# f0's NAPI is made threaded are ours: other namespaces may have an f0 too.
# Their PIDs are left in $napi_pids (their CPU time is the contender's).
napi_pids=
napi_on_cpu1() {
	local before t pinned=0
	napi_pids=
	before=$(pgrep '^napi/f0-' | sort)
	# NAPI exists only with XDP or GRO: turn GRO on so it exists for all.
	ip netns exec "$name-fwd" ethtool -K f0 gro on >/dev/null 2>&1
	ip netns exec "$name-fwd" sh -c 'echo 1 > /sys/class/net/f0/threaded' 2>/dev/null
	for t in $(comm -13 <(echo "$before") <(pgrep '^napi/f0-' | sort)); do
		taskset -p -c 1 "$t" >/dev/null && pinned=1
		napi_pids+=" $t"
	done
	[ "$pinned" = 1 ] || echo "$me: $1: no NAPI thread of f0 to pin: its receive work is not on CPU 1" >&2
}

# Every contender checked before anything runs: a typo or a bad
# configuration is refused with hdp-fwd's own reason, not measured as a
# contender that never forwarded. hdp-fwd --check-config runs start-up's
# checks, which ask the interfaces: it runs in the forwarder's namespace.
check_contender() {
	local c=$1 args
	case $c in
	kernel-xdp|testpmd|kernel-socket|bridge) return 0 ;;
	ini:*) [ -r "${c#ini:}" ] || { echo "$me: contender '$c': cannot read ${c#ini:}" >&2; return 1; } ;;
	hdp-*) local p=${c#hdp-}
	       p=${p%%+*}; p=${p%-busy}; p=${p%-spin}
	       case $p in default|strict) ;; *) profile_spec "$p" >/dev/null ||
			{ echo "$me: contender '$c': unknown profile '$p'" >&2; return 1; } ;; esac ;;
	*) echo "$me: unknown contender '$c' (hdp-PROFILE[+KEY=VALUE...], ini:PATH, kernel-xdp, testpmd, kernel-socket, bridge)" >&2
	   return 1 ;;
	esac
	mapfile -t args < <(fwd_args "$c")
	args=("${args[@]/#--config/--check-config}")
	ip netns exec "$name-fwd" "$(prog hdp-fwd)" "${fwd_base[@]}" "${args[@]}" >"$work/check" 2>&1 &&
		return 0
	echo "$me: contender '$c': $(grep -E '^hdp(-fwd)?: ' "$work/check" | head -3)" >&2
	return 1
}
