# shellcheck shell=bash
# What the end-to-end tests share: TAP counting, the namespace topology,
# starting and stopping hdp-fwd, reading its stats. Sourced with BUILD_DIR
# and SOURCE_DIR as $1 and $2; each script then prints its plan with
# tap_plan, which skips the whole file without root or namespaces.
build=$1
src=$2
fwd=$build/dataplane/hdp-fwd
ctl=$build/dataplane/hdp-ctl
gen=$build/tools/hdp-gen/hdp-gen
sink=$build/tools/hdp-sink/hdp-sink
name=hdpt$$
sock=/run/$name.sock
work=$(mktemp -d)
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

tap_plan() {	# number of checks
	if [ "$(id -u)" -ne 0 ] || ! ip netns add "$name-probe" 2>/dev/null; then
		echo "1..0 # SKIP needs root and network namespaces"
		rm -rf "$work"
		exit 0
	fi
	ip netns del "$name-probe"
	echo "1..$1"
}

# Extra clean-up a script needs goes in this function.
cleanup_more() { :; }
cleanup() {
	cleanup_more
	pkill -f "$sock" 2>/dev/null
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	"$src/scripts/topology" down "$name"
	rm -rf --one-file-system "$work" "$sock"
}
trap cleanup EXIT

start_fwd() {	# extra hdp-fwd options...
	# A SIGKILLed forwarder leaves its socket: wait for the new one, not that.
	rm -f "$sock"
	ip netns exec "$name-fwd" "$fwd" --ports f0,f1 --ctl "$sock" --stats-interval 0 "$@" \
		>"$work/fwd" 2>&1 &
	fwd_pid=$!
	wait_for_sock
}

# Until hdp-fwd's control socket is there: up to 30 s, for a busy machine
# and a queue the kernel has yet to let go of (hdp-fwd waits 5 s for it),
# unless hdp-fwd exits first.
wait_for_sock() {
	for _ in $(seq 300); do
		[ -S "$sock" ] && return 0
		kill -0 "$fwd_pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

stop_fwd() {
	kill -TERM "$fwd_pid" 2>/dev/null
	wait "$fwd_pid"
}

eventually() {	# SECONDS 'condition': until it holds (evaluated every 0.1 s), or SECONDS are over
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		eval "$2" && return 0
		sleep 0.1
	done
	return 1
}

json() {	# python expression over the stats JSON in $work/stats as s
	python3 -c "import json,sys; s=json.load(open('$work/stats')); print($1)"
}

stat_of() {	# fresh stats, then a python expression over them as s
	"$ctl" --socket "$sock" stats --json >"$work/stats" && json "$1"
}

# Frames lost by the kernel before a frame reaches hdp: the AF_XDP socket's
# own drops (no room in a chunk, no frame in the fill ring, RX ring full).
KERNEL_DROPS="s['ports'][0]['kernel']['rx_dropped'] + s['ports'][0]['kernel']['rx_ring_full']"
# Everything hdp-fwd dropped itself, by cause, on both ports.
HDP_DROPS="sum(s['ports'][0]['drops'].values()) + sum(s['ports'][1]['drops'].values())"

link_stat() {	# namespace interface counter
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"
}
