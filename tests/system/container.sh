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
	local i
	for i in $(seq 100); do
		ct_leader=$(pgrep -P "$ct_pid" | head -1)
		[ -n "$ct_leader" ] && break
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
		kill -RTMIN+4 "$ct_leader" 2>/dev/null	# systemd: poweroff
		local i
		for i in $(seq 150); do kill -0 "$ct_pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$ct_pid" 2>/dev/null
		wait "$ct_pid" 2>/dev/null
	fi
	mountpoint -q "$work/os/root" && umount "$work/os/root"
	mountpoint -q "$work/os" && umount "$work/os"
	ct_pid=
}
