#!/bin/sh
# RC on a machine whose CPUs are taken: the host's scheduler must not spend
# a QP's retries (doc/design-notes.md, "Retries the host cannot steal").
# Beside 3 x nproc busy loops, ten pairs of Debian's ibv_rc_pingpong at
# once, each side dropping 5% of the requests it receives, all complete with
# buffers checked; and a peer killed with SIGKILL under the same load still
# ends the survivor's request in RETRY_EXC_ERR within timeout x
# (retry_cnt + 1), 20% either way (tests/integration/peer_death.c).
. "$(dirname "$0")/lib.sh"
need ibv_rc_pingpong ss nproc

# 3 x nproc loops in all, counting those the test command may run already.
n=$((3 * $(nproc) - ${EMUVERBS_HOGS:-0}))
[ "$n" -gt 0 ] && busy_start "$n"

# (k, not i: lib.sh's waits use i.)
pairs=10
pids=""
k=1
while [ $k -le $pairs ]; do
	next_port
	(
		# Requests only: a lost last ACK after the peer has
		# destroyed its QP fails a pingpong on a NIC as well.
		EMUVERBS_FAULT="drop dir=rx op=send prob=0.05"
		export EMUVERBS_FAULT
		pair "pingpong $k" 600 \
			"ibv_rc_pingpong -d emu0 -g 0 -p $PORT -n 100 -s 4096 -c" \
			"ibv_rc_pingpong -d emu0 -g 0 -p $PORT -n 100 -s 4096 -c 127.0.0.1" \
			>"$WORK/pair.$k" 2>&1
		echo $? >"$WORK/rc.$k"
	) &
	pids="$pids $!"
	k=$((k + 1))
done
for p in $pids; do
	wait "$p"
done
k=1
while [ $k -le $pairs ]; do
	if [ "$(cat "$WORK/rc.$k" 2>/dev/null)" = 0 ] &&
	   grep -q "100 iters in" "$WORK/pingpong_$k.client"; then
		ok "pingpong $k: 100 x 4 KiB, 5% of SENDs lost, buffers checked"
	else
		bad "pingpong $k" "$WORK/pair.$k"
		sed 's/^/    c| /' "$WORK/pingpong_$k.client" 2>/dev/null |
			tail -5
	fi
	k=$((k + 1))
done

EMUVERBS_DEBUG=xport timeout 120 "$EMU" run \
	"$top_builddir/tests/integration/peer_death" >"$WORK/death" 2>&1
expect "a killed peer: RETRY_EXC_ERR, the rest flushed" "$WORK/death" \
	"^[0-9]+ passed, 0 failed"
# Every timeout counted (the peer is known to be gone), none excused.
n=$(grep -c "no ACK for psn .* in time" "$WORK/death")
if [ "$n" -eq 8 ] && ! grep -q "not counted" "$WORK/death"; then
	ok "a killed peer: 8 timeouts counted, none excused"
else
	bad "a killed peer: $n timeouts counted" "$WORK/death"
fi
# 8 timeouts of 67.1 ms: 537 ms, 20% either way. Only the last timer's
# own lateness can add to it (emu/comp.c rearm_after), which a machine
# loaded past what this script adds may stretch: CK_TIMEOUT_MULTIPLIER.
ms=$(sed -n 's/^gave up after \([0-9]*\) ms.*/\1/p' "$WORK/death")
hi=$(awk -v f="${CK_TIMEOUT_MULTIPLIER:-1}" \
	'BEGIN { if (f < 1) f = 1; printf "%d", 644 * f }')
echo "a killed peer: RETRY_EXC_ERR after ${ms:-?} ms under load (8 x 67.1)"
if [ -n "$ms" ] && [ "$ms" -ge 429 ] && [ "$ms" -le "$hi" ]; then
	ok "a killed peer: within timeout x (retry_cnt + 1), 20% either way"
else
	bad "a killed peer: ${ms:-no} ms, not within 429..$hi" "$WORK/death"
fi
finish
