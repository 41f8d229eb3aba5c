#!/bin/sh
# Debian's Open MPI 4.1 with pml ucx over the emulated device, two ranks on
# one host: under one `emuverbs run` (a shared view) and with one
# `emuverbs run` per rank. UCX's transports are pinned to emu0 (intra-node
# it would otherwise take shared memory) and the lanes checked.
. "$(dirname "$0")/lib.sh"
need mpicc mpirun
mpicc -O2 -o "$WORK/pp" "$top_srcdir/tests/integration/mpi_pingpong.c" \
	>"$WORK/cc" 2>&1 || { bad "mpicc" "$WORK/cc"; finish; exit; }

unset UCX_TLS UCX_NET_DEVICES UCX_LOG_LEVEL
MPI="mpirun --allow-run-as-root -np 2 --mca pml ucx --mca btl ^openib,uct \
	-x UCX_NET_DEVICES=emu0:1"

# check NAME FILE: the program's figures and checks in FILE.
check() {
	expect "$1: 1 MiB data arrives" "$2" '^1 MiB sends: data ok$'
	expect "$1: allreduce" "$2" '^allreduce: 3$'
	grep -E '^(latency|bandwidth)' "$2" | sed "s/^/    $1: /"
}

for tls in rc_verbs,ud_verbs:aux ud_verbs; do
	out="$WORK/one.$tls"
	# shellcheck disable=SC2086
	if timeout 120 "$EMU" run $MPI -x UCX_TLS=$tls -x UCX_LOG_LEVEL=info \
		"$WORK/pp" >"$out" 2>&1; then
		ok "one view, $tls: exit 0"
	else
		bad "one view, $tls: exit status" "$out"
	fi
	check "one view, $tls" "$out"
	expect "one view, $tls: UCX uses emu0" "$out" \
		"ep_cfg\\[[0-9]+\\]: tag\\(${tls%%,*}/emu0:1"
done

out="$WORK/per-rank"
# shellcheck disable=SC2086
if timeout 120 $MPI -x UCX_TLS=rc_verbs,ud_verbs:aux "$EMU" run "$WORK/pp" \
	>"$out" 2>&1; then
	ok "a view per rank: exit 0"
else
	bad "a view per rank: exit status" "$out"
fi
check "a view per rank" "$out"
finish
