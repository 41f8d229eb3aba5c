#!/bin/sh
# Debian's unmodified ibv_srq_pingpong and ibv_xsrq_pingpong, and perftest's
# ib_send_bw on an SRQ, two (or more) processes through `emuverbs run`.
. "$(dirname "$0")/lib.sh"
need ibv_srq_pingpong ibv_xsrq_pingpong ib_send_bw ss

FIG='bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec'
for args in "" "-q 8" "-e" "-e -q 8" "-q 8 -s 8192 -n 300"; do
	next_port
	pair "ibv_srq_pingpong $args" 60 \
		"ibv_srq_pingpong -d emu0 -g 0 -p $PORT $args" \
		"ibv_srq_pingpong -d emu0 -g 0 -p $PORT $args 127.0.0.1" ||
		continue
	expect "ibv_srq_pingpong $args: figures" "$_s.client" "$FIG"
done

for args in "" "-e" "-n 200 -s 8192"; do
	next_port
	pair "ibv_xsrq_pingpong $args" 60 \
		"ibv_xsrq_pingpong -d emu0 -g 0 -p $PORT $args" \
		"ibv_xsrq_pingpong -d emu0 -g 0 -p $PORT $args 127.0.0.1" ||
		continue
	expect "ibv_xsrq_pingpong $args: server" "$_s.server" '^success'
	expect "ibv_xsrq_pingpong $args: client" "$_s.client" '^success'
done

# One server, three client processes: the server's XRC SRQ is shared by
# three XRC target QPs, and each client's initiator reaches it by number.
next_port
_s="$WORK/xsrq_c3"
timeout 60 "$EMU" run ibv_xsrq_pingpong -d emu0 -g 0 -p "$PORT" -c 3 \
	>"$_s.server" 2>&1 &
spid=$!
if wait_listen "$PORT"; then
	cpids=
	for i in 1 2 3; do
		timeout 60 "$EMU" run ibv_xsrq_pingpong -d emu0 -g 0 \
			-p "$PORT" 127.0.0.1 >"$_s.client$i" 2>&1 &
		cpids="$cpids $!"
	done
	crc=0
	for p in $cpids; do wait "$p" || crc=1; done
	if wait "$spid" && [ "$crc" -eq 0 ]; then
		ok "ibv_xsrq_pingpong -c 3 (three clients)"
	else
		bad "ibv_xsrq_pingpong -c 3 (three clients)" "$_s.server"
	fi
else
	kill "$spid" 2>/dev/null
	bad "ibv_xsrq_pingpong -c 3: server never listened" "$_s.server"
fi

# A result line: the size, every one of the iterations (1000 per QP),
# then figures (not judged: how fast is the machine's business).
for args in "" "-q 4" "-c UD"; do
	case $args in
	"-q 4") n=4000 ;;
	*) n=1000 ;;
	esac
	next_port
	bw="ib_send_bw --use-srq -d emu0 -x 0 -p $PORT -n 1000 $args"
	pair "ib_send_bw --use-srq $args" 90 "$bw" "$bw 127.0.0.1" ||
		continue
	expect "ib_send_bw --use-srq $args: figures" "$_s.client" \
		"^[[:space:]]*[0-9]+[[:space:]]+$n[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+"
done
finish
