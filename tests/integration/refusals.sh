#!/bin/sh
# EMUVERBS_DEBUG=verbs: a refused verb says on stderr which argument or
# rule refused it, from an unmodified program (Debian's ibv_rc_pingpong
# and our errpaths, built against Debian's header); without the variable
# the library says nothing.
. "$(dirname "$0")/lib.sh"
need ibv_rc_pingpong

# -r 100000 asks for a receive queue past max_qp_wr: ibv_create_qp fails
# before the server ever listens.
out="$WORK/pingpong"
EMUVERBS_DEBUG=verbs timeout 30 "$EMU" run ibv_rc_pingpong -d emu0 -g 0 \
	-r 100000 -p 19999 >"$out" 2>&1
expect "ibv_create_qp: refusal names the cap and the limit" "$out" \
	'^emuverbs\[[0-9]+\] [0-9]+\.[0-9]{6} verbs: ibv_create_qp: max_recv_wr 100000 > max_qp_wr 32768$'
expect "ibv_rc_pingpong: still fails as before" "$out" 'Couldn.t create QP'
timeout 30 "$EMU" run ibv_rc_pingpong -d emu0 -g 0 -r 100000 -p 19999 \
	>"$out.quiet" 2>&1
reject "no EMUVERBS_DEBUG: no log lines" "$out.quiet" '^emuverbs\['
expect "no EMUVERBS_DEBUG: the program's own message" "$out.quiet" \
	'Couldn.t create QP'

if [ -x "$top_builddir/tests/integration/errpaths" ]; then
	EMUVERBS_DEBUG=verbs "$EMU" run \
		"$top_builddir/tests/integration/errpaths" >"$WORK/errpaths" \
		2>"$WORK/errpaths.err"
	expect "ibv_modify_qp: refusal names the bit and the transition" \
		"$WORK/errpaths.err" \
		'verbs: ibv_modify_qp: attr_mask has IBV_QP_PATH_MTU, not allowed for RESET->INIT of RC$'
	expect "ibv_post_send: refusal names the state" "$WORK/errpaths.err" \
		'verbs: ibv_post_send: the QP \(RESET\) has not been in RTS since it was made or last reset$'
	expect "ibv_destroy_cq: refusal says why" "$WORK/errpaths.err" \
		'verbs: ibv_destroy_cq: QPs or SRQs still use the CQ$'
	# Walking a GID table is no refusal: of errpaths' GID queries only
	# the six with a bad port, index or flags are logged, not the ones
	# that find an empty slot (ENODATA).
	n=$(grep -c 'verbs: ibv_query_gid_ex: ' "$WORK/errpaths.err")
	if [ "$n" -eq 6 ]; then
		ok "ibv_query_gid_ex: empty slots are not refusals"
	else
		bad "ibv_query_gid_ex: $n refusals logged, not 6" \
			"$WORK/errpaths.err"
	fi
	# The log is on stderr only, and one write per line: no line of it
	# lands in the program's output.
	reject "the log stays off stdout" "$WORK/errpaths" '^emuverbs\['
fi
finish
