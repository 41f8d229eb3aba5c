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
# The QP's own schedule: timeout x (retry_cnt + 1) = 8 x 67.1 ms, never
# less. When the last timer gets a CPU is the host's business, so the
# upper bound is checked on the schedule the log records: each timeout
# line says how late its timer ran, and the due times must stay 67.1 ms
# apart however late any one firing was (emu/transport/comp.c rearm_after).
ms=$(sed -n 's/^gave up after \([0-9]*\) ms.*/\1/p' "$WORK/death")
echo "a killed peer: RETRY_EXC_ERR after ${ms:-?} ms under load (8 x 67.1)"
if [ -n "$ms" ] && [ "$ms" -ge 429 ]; then
	ok "a killed peer: not before timeout x (retry_cnt + 1)"
else
	bad "a killed peer: ${ms:-no} ms, under 429" "$WORK/death"
fi
span=$(awk '/no ACK for psn .* in time/ {
	for (f = 1; f <= NF; f++) if ($f ~ /^[0-9]+\.[0-9]+$/) { t = $f; break }
	late = $0; sub(/.*timer /, "", late); sub(/ us late.*/, "", late)
	due = t * 1000 - late / 1000
	if (!n++) first = due
	last = due
} END { if (n == 8) printf "%.1f", last - first }' "$WORK/death")
echo "a killed peer: 2nd..8th timeouts due ${span:-?} ms after the 1st (7 x 67.1 = 469.8)"
if [ -n "$span" ] && awk -v s="$span" 'BEGIN { exit !(s >= 465 && s <= 475) }'
then
	ok "a killed peer: timeouts due 67.1 ms apart however late they ran"
else
	bad "a killed peer: due times span ${span:-no} ms, not 469.8" \
		"$WORK/death"
fi
finish
