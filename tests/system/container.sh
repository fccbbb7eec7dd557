# shellcheck shell=bash
# A container booted with systemd as PID 1, for the tests that need a real
# service manager: this machine's own system as its root, read-only below
# an overlay whose upper layer is a tmpfs (so whatever the tests install
# or change inside goes with it), joined to a network namespace the test
# made, booted to hdp-ci.target (basic.target and nothing the machine
# happens to have enabled). Sourced; needs $work.
#
# Two things differ from a booted machine, both for the container's sake:
# - systemd-nspawn's own system call filter refuses bpf() to everything in
#   the container (SYSTEMD_SECCOMP=0 lifts it); each service's filter,
#   from its unit, is what remains;
# - nspawn is told not to ask a host systemd for a scope (--keep-unit,
#   --register=no), as PID 1 of this machine is not systemd.

ct_root=
ct_pid=
ct_leader=

ct_boot() {	# NAME NETNS: boot; 0 once systemd reports the boot finished
	local name=$1 netns=$2 os=$work/os
	mkdir -p "$os" && mount -t tmpfs -o mode=755 "ct-$name" "$os" || return 1
	mkdir -p "$os/upper" "$os/work" "$os/root"
	mount -t overlay "ct-$name" -o "lowerdir=/,upperdir=$os/upper,workdir=$os/work" "$os/root" ||
		return 1
	ct_root=$os/root
	systemd-id128 new >"$ct_root/etc/machine-id"	# its own journal, not the host's
	# Maintainer scripts act as on a booted Debian: no policy-rc.d veto.
	rm -f "$ct_root/usr/sbin/policy-rc.d"
	mkdir -p "$ct_root/etc/systemd/system"
	cat >"$ct_root/etc/systemd/system/hdp-ci.target" <<'UNIT'
[Unit]
Description=hdp's tests: basic.target and nothing else the machine has enabled
Requires=basic.target
After=basic.target
UNIT
	SYSTEMD_SECCOMP=0 systemd-nspawn -D "$ct_root" --register=no --keep-unit \
		--link-journal=no --network-namespace-path="/run/netns/$netns" -M "$name" \
		--capability=all --rlimit=RLIMIT_MEMLOCK=infinity \
		--boot systemd.unit=hdp-ci.target >"$work/container.log" 2>&1 &
	ct_pid=$!
	local i p
	# The container's PID 1: nspawn's child that is PID 1 in its own PID
	# namespace (a short-lived helper child comes first).
	for i in $(seq 150); do
		for p in $(pgrep -P "$ct_pid"); do
			awk '/^NSpid:/ {exit !($NF == 1)}' "/proc/$p/status" 2>/dev/null && ct_leader=$p
		done
		# Booted far enough to answer: its manager's socket is there.
		[ -n "$ct_leader" ] && [ -S "/proc/$ct_leader/root/run/systemd/private" ] && break
		sleep 0.1
	done
	[ -n "$ct_leader" ] || return 1
	timeout 60 nsenter -t "$ct_leader" -a systemctl is-system-running --wait >"$work/boot" 2>&1
	echo "system state: $(cat "$work/boot")" >>"$work/container.log"
	grep -qE '^(running|degraded)$' "$work/boot"
}

in_ct() {	# command...: run inside the container, as root, with a clean environment
	nsenter -t "$ct_leader" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive "$@"
}

ct_down() {	# power off (systemd stops every service first), then clean up
	if [ -n "$ct_pid" ] && kill -0 "$ct_pid" 2>/dev/null; then
		# nspawn hands it on to the container's PID 1 as its halt signal.
		kill -TERM "$ct_pid" 2>/dev/null
		local i
		for i in $(seq 150); do kill -0 "$ct_pid" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$ct_pid" 2>/dev/null; then
			# No host systemd reaps what is left: PID 1's death takes the
			# whole PID namespace with it.
			[ -n "$ct_leader" ] && kill -KILL "$ct_leader" 2>/dev/null
			kill -KILL "$ct_pid" 2>/dev/null
		fi
		wait "$ct_pid" 2>/dev/null
	fi
	mountpoint -q "$work/os/root" && { umount "$work/os/root" || umount -l "$work/os/root"; }
	mountpoint -q "$work/os" && { umount "$work/os" || umount -l "$work/os"; }
	ct_pid=
	ct_leader=
}
