#!/bin/sh
# UCX 1.13 over our librdmacm: UCX_SOCKADDR_TLS_PRIORITY=rdmacm, a client
# connecting by address. ucx_perftest exchanges worker addresses over TCP
# and never uses the sockaddr path; io_demo (ucx-utils) does: ucp_listener
# on the server, ucp_ep_create by sockaddr on the client, through UCX's
# rdmacm CM (its dummy UD QP on id->pd, CONNECT_RESPONSE, rdma_establish).
. "$(dirname "$0")/lib.sh"
need ucx_info io_demo ss

unset UCX_TLS UCX_NET_DEVICES UCX_IB_GID_INDEX UCX_LOG_LEVEL
"$EMU" run ucx_info -d >"$WORK/info" 2>&1
expect "ucx_info: connection manager rdmacm" "$WORK/info" \
	'# Connection manager: rdmacm'

export UCX_SOCKADDR_TLS_PRIORITY=rdmacm UCX_NET_DEVICES=emu0:1
export UCX_TLS=rc_verbs,ud_verbs:aux
# io_demo: a server and a client; 0 when the client's exchange is OK.
io_pair() {
	next_port
	env $1 timeout 30 "$EMU" run io_demo -p "$PORT" -d 4096 \
		>"$WORK/io.server" 2>&1 &
	sp=$!
	# rdma_cm listens through its rendezvous, not on a TCP port.
	wait_cm "$TCP" "$PORT"
	timeout 30 "$EMU" run io_demo -p "$PORT" -d 4096 -i 2000 "$2" \
		>"$WORK/io.client" 2>&1
	crc=$?
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	[ $crc -eq 0 ] &&
		grep -aq "Client exit with status 'OK'" "$WORK/io.client"
}

# By 127.0.0.1 (the rendezvous), and by the server port's own address
# (fixed, so that the client knows it). UCX's wireup timeouts run on the
# wall clock, so on a loaded machine an attempt may time out: up to three.
for addr in 127.0.0.1 emu0; do
	env=EMUVERBS_DEBUG=
	dst=$addr
	if [ "$addr" = emu0 ]; then
		env=EMUVERBS_ADDRESS=127.1.9.9
		dst=127.1.9.9
	fi
	n=1
	until io_pair "$env" "$dst" || [ $n -eq 3 ]; do
		echo "note: io_demo to $addr: attempt $n failed (exit $crc)"
		sed 's/^/    | /' "$WORK/io.client" | tail -5
		n=$((n + 1))
	done
	if [ $crc -eq 0 ] &&
		grep -aq "Client exit with status 'OK'" "$WORK/io.client"; then
		ok "io_demo over rdmacm to $addr (attempt $n)"
		grep -a 'write [0-9.]* MBs' "$WORK/io.client" | tail -n 1 |
			sed 's/.*| write \([0-9.]*\) MBs.*/    write \1 MB\/s (io_demo, 4 KiB)/'
	else
		bad "io_demo over rdmacm to $addr: client exit $crc" \
			"$WORK/io.client"
	fi
	reject "io_demo to $addr: no UCX error" "$WORK/io.client" \
		'UCX +ERROR|Assertion'
done
finish
