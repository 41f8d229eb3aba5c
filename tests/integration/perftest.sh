#!/bin/sh
# Debian's unmodified perftest binaries, two processes through `emuverbs
# run`, short runs: every one must finish with exit 0 and print figures.
. "$(dirname "$0")/lib.sh"
need ib_send_lat ib_write_lat ib_read_lat ib_atomic_lat ib_send_bw \
	ib_write_bw ib_read_bw ib_atomic_bw ss

# A result line: the size, every one of the 500 iterations, then figures.
# They are not judged: an average MB/s of 8-byte atomics on a busy machine
# may print as 0.00.
FIG='^[[:space:]]*[0-9]+[[:space:]]+500[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+'
for prog in ib_send_lat ib_write_lat ib_read_lat ib_atomic_lat; do
	next_port
	pair "$prog" 90 "$prog -d emu0 -x 0 -p $PORT -n 500" \
		"$prog -d emu0 -x 0 -p $PORT -n 500 127.0.0.1" || continue
	expect "$prog: latency figures" "$_s.client" \
		"$FIG"
done
for prog in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw; do
	next_port
	pair "$prog" 90 "$prog -d emu0 -x 0 -p $PORT -n 500" \
		"$prog -d emu0 -x 0 -p $PORT -n 500 127.0.0.1" || continue
	expect "$prog: bandwidth figures" "$_s.client" \
		"$FIG"
done
# XRC: perftest sets both halves up with RC's masks, which only works
# where, as in the kernel, each XRC type ignores the other half's bits.
for prog in ib_send_bw ib_write_bw; do
	next_port
	pair "$prog -c XRC" 90 "$prog -d emu0 -x 0 -p $PORT -n 500 -c XRC" \
		"$prog -d emu0 -x 0 -p $PORT -n 500 -c XRC 127.0.0.1" ||
		continue
	expect "$prog -c XRC: bandwidth figures" "$_s.client" \
		"$FIG"
done
# Many QPs, and a CQ past the 65535 CQEs the device once had: 5 QPs of
# 15000 WRs share one CQ of 75000 (a ConnectX has 4194303), and a
# thousand QPs run a few iterations each (budget.sh runs them at full
# depth, 128 WRs each, under the device-wide budget of packets in flight).
next_port
pair "ib_write_bw -q 5 -t 15000" 120 \
	"ib_write_bw -d emu0 -x 0 -p $PORT -q 5 -t 15000 -n 15000 -s 64" \
	"ib_write_bw -d emu0 -x 0 -p $PORT -q 5 -t 15000 -n 15000 -s 64 127.0.0.1" &&
	expect "ib_write_bw -q 5 -t 15000: bandwidth figures" "$_s.client" \
		'^[[:space:]]*64[[:space:]]+75000[[:space:]]+[0-9.]+[[:space:]]+[0-9.]*[1-9][0-9.]*'
next_port
pair "ib_write_bw -q 1000" 120 \
	"ib_write_bw -d emu0 -x 0 -p $PORT -q 1000 -n 5 -s 4096" \
	"ib_write_bw -d emu0 -x 0 -p $PORT -q 1000 -n 5 -s 4096 127.0.0.1" &&
	expect "ib_write_bw -q 1000: bandwidth figures" "$_s.client" \
		'^[[:space:]]*4096[[:space:]]+5000[[:space:]]+[0-9.]+[[:space:]]+[0-9.]*[1-9][0-9.]*'
finish
