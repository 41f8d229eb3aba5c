#!/bin/sh
# An emulated InfiniBand subnet: ports with link layer InfiniBand get their
# LID from the emulated subnet manager (sm_lid 1, LMC 0, a link-local GID of
# the port's GUID), and programs that address peers by LID alone reach
# them: Debian's ibv_rc/uc/ud_pingpong without -g, perftest without -x,
# qperf (which never sets a GRH).
. "$(dirname "$0")/lib.sh"
need ibv_rc_pingpong ibv_ud_pingpong ib_send_lat ibv_devinfo ss
export EMUVERBS_LINK_LAYER=infiniband

"$EMU" run ibv_devinfo -v >"$WORK/devinfo" 2>&1
expect "link layer InfiniBand" "$WORK/devinfo" "link_layer:[[:space:]]+InfiniBand"
expect "a LID from the subnet manager" "$WORK/devinfo" "port_lid:[[:space:]]+[2-9]"
expect "the SM's LID" "$WORK/devinfo" "sm_lid:[[:space:]]+1$"
expect "LMC 0" "$WORK/devinfo" "port_lmc:[[:space:]]+0x00"
expect "GID 0: link-local, of the port GUID" "$WORK/devinfo" \
	"GID\[  0\]:[[:space:]]+fe80:0000:0000:0000:0265:6d75:7f"
reject "no IP GIDs on an InfiniBand port" "$WORK/devinfo" "::ffff:"

for prog in ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong; do
	next_port
	pair "$prog, LID only" 60 "$prog -p $PORT -n 500" \
		"$prog -p $PORT -n 500 127.0.0.1" || continue
	expect "$prog: LIDs exchanged" "$_s.client" \
		"remote address: +LID 0x000[0-9a-f]*[1-9a-f][0-9a-f]*, QPN"
	expect "$prog: no GID" "$_s.client" "GID ::$"
done
next_port
pair "ibv_rc_pingpong -g 0 (GRH of link-local GIDs)" 60 \
	"ibv_rc_pingpong -p $PORT -g 0 -n 500" \
	"ibv_rc_pingpong -p $PORT -g 0 -n 500 127.0.0.1"

for t in ib_send_lat ib_write_lat ib_read_bw; do
	next_port
	pair "$t without -x" 90 "$t -p $PORT -n 500" \
		"$t -p $PORT -n 500 127.0.0.1" &&
		expect "$t: figures" "$_s.client" "^ *[0-9]+ +500 "
done

if command -v qperf >/dev/null 2>&1; then
	next_port
	"$EMU" run qperf -lp "$PORT" >"$WORK/qperf.server" 2>&1 &
	qs=$!
	wait_listen "$PORT"
	timeout 120 "$EMU" run qperf 127.0.0.1 -lp "$PORT" -t 1 rc_lat \
		rc_bw ud_lat uc_lat rc_rdma_read_lat rc_rdma_write_bw \
		>"$WORK/qperf" 2>&1
	rc=$?
	kill "$qs" 2>/dev/null
	wait "$qs" 2>/dev/null
	[ $rc -eq 0 ] && ok "qperf rc, uc, ud and RDMA tests by LID" ||
		bad "qperf rc, uc, ud and RDMA tests by LID" "$WORK/qperf"
	[ "$(grep -c 'latency *= ' "$WORK/qperf")" -eq 4 ] &&
		[ "$(grep -c ' bw *= ' "$WORK/qperf")" -eq 2 ] &&
		ok "qperf: four latencies, two bandwidths" ||
		bad "qperf: four latencies, two bandwidths" "$WORK/qperf"
else
	echo "note: qperf is not installed: not run"
fi

finish
