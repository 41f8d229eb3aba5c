#!/bin/sh
# Debian's unmodified ibv_rc/uc/ud_pingpong, two processes through `emuverbs
# run`: polling and events (-e), sizes below and above the MTU.
. "$(dirname "$0")/lib.sh"
need ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ss

for prog in ibv_rc_pingpong ibv_uc_pingpong; do
	for args in "" "-e" "-s 8192" "-s 65536 -n 200" "-m 1024 -s 3000" \
		    "-e -s 100000 -n 100"; do
		next_port
		pair "$prog $args" 60 \
			"$prog -d emu0 -g 0 -p $PORT $args" \
			"$prog -d emu0 -g 0 -p $PORT $args 127.0.0.1" || continue
		expect "$prog $args: figures" "$_s.client" \
			'bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec'
	done
done
# UD messages are limited to the path MTU (4096 less the GRH area).
for args in "" "-e" "-s 1024" "-s 4000"; do
	next_port
	pair "ibv_ud_pingpong $args" 60 \
		"ibv_ud_pingpong -d emu0 -g 0 -p $PORT $args" \
		"ibv_ud_pingpong -d emu0 -g 0 -p $PORT $args 127.0.0.1" ||
		continue
	expect "ibv_ud_pingpong $args: figures" "$_s.client" \
		'bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec'
done
finish
