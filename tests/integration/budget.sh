#!/bin/sh
# Congestion of our own making: many RC QPs at full depth on one loopback
# pair. A thousand QPs x 128 RDMA WRITEs of 4 KiB (perftest's default
# depth, 500 MiB) once overran the receiving UDP socket and ended in
# RETRY_EXC_ERR; the device-wide budget of packets in flight keeps them
# inside what the socket holds. Each must finish, and its retransmissions
# stay a small share of what it sent (EMUVERBS_DEBUG=xport prints a
# port's counters when the device closes; without the budget a 256-QP
# run sent every packet nearly 5 times). READs too: their responses are
# what the budget protects on the requester's own socket.
. "$(dirname "$0")/lib.sh"
need ib_write_bw ib_read_bw ss

export EMUVERBS_DEBUG=xport

# few_resends NAME FILE: the counters the device logged in FILE as it
# closed (name=value words, those not 0) show under 5% of its packets sent
# again.
few_resends() {
	_c='.*xport: emu0/1 .*: counters.*'
	_tx=$(sed -nE "s|$_c sent_pkts=([0-9]+).*|\\1|p" "$2" | tail -1)
	_re=$(sed -nE "s|$_c retransmits=([0-9]+).*|\\1|p" "$2" | tail -1)
	[ -n "$_tx" ] && [ -z "$_re" ] && _re=0
	if [ -z "$_tx" ]; then
		bad "$1: no counters line" "$2"
		return
	fi
	echo "    $1: $_tx packets sent, $_re again"
	if [ $((_re * 20)) -le "$_tx" ]; then
		ok "$1: retransmissions under 5%"
	else
		bad "$1: $_re of $_tx packets retransmitted" "$2"
	fi
}

BW='^[[:space:]]*4096[[:space:]]+'

next_port
pair "ib_write_bw -q 1000" 60 \
	"ib_write_bw -d emu0 -x 0 -p $PORT -q 1000 -n 128 -s 4096" \
	"ib_write_bw -d emu0 -x 0 -p $PORT -q 1000 -n 128 -s 4096 127.0.0.1" &&
	expect "ib_write_bw -q 1000: 128000 messages" "$_s.client" \
		"${BW}128000[[:space:]]+[0-9.]+[[:space:]]+[0-9.]*[1-9]" &&
	few_resends "ib_write_bw -q 1000" "$_s.client"

next_port
pair "ib_read_bw -q 64" 60 \
	"ib_read_bw -d emu0 -x 0 -p $PORT -q 64 -n 500 -s 4096" \
	"ib_read_bw -d emu0 -x 0 -p $PORT -q 64 -n 500 -s 4096 127.0.0.1" &&
	expect "ib_read_bw -q 64: 32000 messages" "$_s.client" \
		"${BW}32000[[:space:]]+[0-9.]+[[:space:]]+[0-9.]*[1-9]" &&
	few_resends "ib_read_bw -q 64" "$_s.client"
finish
