# shellcheck shell=bash
# TAP for the shell tests: count checks, print ok / not ok, and on failure
# the last lines of a details file. The script ends with [ "$failed" -eq 0 ].
n=0
failed=0

ok() {	# condition-status description [details-file]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -n "${3:-}" ] && [ -f "$3" ] && sed "s/^/# /" "$3"
	fi
}
