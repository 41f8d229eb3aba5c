#!/bin/sh
# Debian's UCX 1.13 (ucx-utils), unmodified, through `emuverbs run` with no
# workaround: ucx_info lists emu0:1 with rc_verbs and ud_verbs, and
# ucx_perftest between two processes (two emulated hosts) finishes tag,
# put and active-message tests over each transport; prints the figures.
. "$(dirname "$0")/lib.sh"
need ucx_info ucx_perftest ss

unset UCX_TLS UCX_NET_DEVICES UCX_IB_GID_INDEX UCX_LOG_LEVEL
out="$WORK/info"

# Discovery: only the view emuverbs run makes lets UCX see the device.
"$EMU" run ucx_info -d >"$out" 2>&1
expect "ucx_info: memory domain emu0" "$out" '# Memory domain: emu0'
for tl in rc_verbs ud_verbs; do
	if grep -A1 "Transport: $tl\$" "$out" | grep -q 'Device: emu0:1$'; then
		ok "ucx_info: $tl on emu0:1"
	else
		bad "ucx_info: $tl on emu0:1" "$out"
	fi
done
EMUVERBS_VIEW=0 "$EMU" run ucx_info -d >"$WORK/noview" 2>&1
reject "ucx_info: no emu0 without the view" "$WORK/noview" \
	'Memory domain: emu0'

# perf NAME TEST ARGS...: a server and a client `ucx_perftest`, short runs;
# both must exit 0 and the client's Final line count every iteration (-n)
# with a latency. Prints the figures: latency in microseconds (half the
# round trip, as ucx_perftest reports it), bandwidth in MB/s. They are
# not judged: with two decimals, the MB/s of 8-byte messages on a busy
# machine (milliseconds each) is 0.00.
perf() {
	_pname=$1
	shift
	_iters=$(echo "$*" | sed -n 's/.*-n \([0-9]*\).*/\1/p')
	next_port
	pair "$_pname" 60 "ucx_perftest -p $PORT" \
		"ucx_perftest 127.0.0.1 -p $PORT $*" || return 1
	_fin=$(grep '^Final:' "$_s.client")
	# Final: iterations, latency 50%/avg/overall, MB/s avg/overall,
	# msg/s avg/overall
	if echo "$_fin" | awk -v n="$_iters" '{ exit !($2 == n && $4 > 0) }'
	then
		ok "$_pname: figures"
		case "$*" in
		*_bw*)	echo "$_fin" | awk -v n="$_pname" '{ printf \
			"    %-26s %9.2f MB/s  %9.0f msg/s\n", n, $7, $9 }' ;;
		*)	echo "$_fin" | awk -v n="$_pname" '{ printf \
			"    %-26s %9.2f us average, %.2f us median\n", \
			n, $4, $3 }' ;;
		esac
	else
		bad "$_pname: no Final line of $_iters iterations" \
			"$_s.client"
	fi
}

export UCX_NET_DEVICES=emu0:1

# RC: UCP cannot wire rc_verbs up alone (it needs a transport that
# connects to an interface: "no auxiliary transport"), on any device; so
# ud_verbs carries the wire-up messages only, as UCX's rc_v alias has it.
# The lanes are checked to be rc_verbs.
export UCX_TLS=rc_verbs,ud_verbs:aux
export UCX_LOG_LEVEL=info
next_port
pair "rc_verbs lanes" 60 "ucx_perftest -p $PORT" \
	"ucx_perftest 127.0.0.1 -p $PORT -t tag_bw -s 1048576 -n 20 -w 2"
unset UCX_LOG_LEVEL
expect "rc_verbs: tag lanes are rc_verbs" "$_s.client" \
	'ep_cfg\[[0-9]+\]: tag\(rc_verbs/emu0:1'
reject "rc_verbs: no ud_verbs data lane" "$_s.client" \
	'ep_cfg\[[0-9]+\]: .*\((ud_verbs|tcp)'
perf "rc_verbs tag_lat" -t tag_lat -n 2000 -w 200
perf "rc_verbs tag_bw 64K" -t tag_bw -s 65536 -n 300 -w 30
perf "rc_verbs tag_bw 1M (rndv)" -t tag_bw -s 1048576 -n 60 -w 6
perf "rc_verbs put_bw 64K" -t put_bw -x rc_verbs -d emu0:1 -D zcopy \
	-s 65536 -n 300 -w 30
perf "rc_verbs am_lat" -t am_lat -x rc_verbs -d emu0:1 -n 2000 -w 200

# UD: UCP reliability over ud_verbs alone; UCT ud_verbs has no put, so put
# bandwidth is UCP's (over active messages).
export UCX_TLS=ud_verbs
perf "ud_verbs tag_lat" -t tag_lat -n 2000 -w 200
perf "ud_verbs tag_bw 64K" -t tag_bw -s 65536 -n 300 -w 30
perf "ud_verbs ucp_put_bw 64K" -t ucp_put_bw -s 65536 -n 300 -w 30
perf "ud_verbs am_lat" -t am_lat -x ud_verbs -d emu0:1 -n 2000 -w 200
finish
