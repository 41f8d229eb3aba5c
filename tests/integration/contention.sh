#!/bin/sh
# RC on a machine whose CPUs are taken: the host's scheduler must not spend
# a QP's retries (doc/design-notes.md, "Retries the host cannot steal").
# Beside 3 x nproc busy loops, ten pairs of Debian's ibv_rc_pingpong at
# once, each side dropping 5% of what it receives, all complete with their
# buffers checked; and a peer killed with SIGKILL under the same load still
# ends the survivor's request in RETRY_EXC_ERR within timeout x
# (retry_cnt + 1), 20% either way (tests/integration/peer_death.c).
. "$(dirname "$0")/lib.sh"
need ibv_rc_pingpong ss nproc

busy_start $((3 * $(nproc)))

pairs=10
i=1
while [ $i -le $pairs ]; do
	next_port
	(
		EMUVERBS_FAULT="drop dir=rx prob=0.05"
		export EMUVERBS_FAULT
		pair "pingpong $i" 600 \
			"ibv_rc_pingpong -d emu0 -g 0 -p $PORT -n 100 -s 4096 -c" \
			"ibv_rc_pingpong -d emu0 -g 0 -p $PORT -n 100 -s 4096 -c 127.0.0.1" \
			>"$WORK/pair.$i" 2>&1
		echo $? >"$WORK/rc.$i"
	) &
	i=$((i + 1))
done
wait
i=1
while [ $i -le $pairs ]; do
	if [ "$(cat "$WORK/rc.$i" 2>/dev/null)" = 0 ] &&
	   grep -q "100 iters in" "$WORK/pingpong_$i.client"; then
		ok "pingpong $i: 100 x 4 KiB, 5% dropped, buffers checked"
	else
		bad "pingpong $i" "$WORK/pair.$i"
		sed 's/^/    c| /' "$WORK/pingpong_$i.client" 2>/dev/null |
			tail -5
	fi
	i=$((i + 1))
done

timeout 120 "$EMU" run "$top_builddir/tests/integration/peer_death" \
	>"$WORK/death" 2>&1
expect "a killed peer: RETRY_EXC_ERR, the rest flushed" "$WORK/death" \
	"^3 passed, 0 failed"
ms=$(sed -n 's/^gave up after \([0-9]*\) ms.*/\1/p' "$WORK/death")
echo "a killed peer: RETRY_EXC_ERR after ${ms:-?} ms under load (8 x 67.1)"
# 8 timeouts of 67.1 ms: 537 ms, 20% either way.
if [ -n "$ms" ] && [ "$ms" -ge 429 ] && [ "$ms" -le 644 ]; then
	ok "a killed peer: within timeout x (retry_cnt + 1), 20% either way"
else
	bad "a killed peer: ${ms:-no} ms, not within 429..644" "$WORK/death"
fi
finish
