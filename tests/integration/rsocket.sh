#!/bin/sh
# rsockets: Debian's unmodified rsocket programs (rdmacm-utils' rstream,
# riostream, udpong and rcopy) through `emuverbs run`, two processes each,
# on our librdmacm's rsockets; and a program written for plain TCP
# sockets (rstream -T s) under Debian's own librspreload interposer,
# which turns its sockets into ours. Short runs: a few sizes, verified.
. "$(dirname "$0")/lib.sh"
need rstream riostream udpong rcopy

# rstream: blocking, nonblocking, asynchronous (rpoll) and verified data.
for opt in b n a v; do
	next_port
	cm "rstream -T $opt" 60 $TCP $PORT \
		"rstream -T $opt -S 65536 -C 200 -p $PORT" \
		"rstream -s 127.0.0.1 -T $opt -S 65536 -C 200 -p $PORT"
done
# Sizes that are not a whole number of our segments, verified. (Not
# below 16: rstream's 16-byte sync message reads past a smaller buffer.)
for size in 17 4097 1000000; do
	next_port
	cm "rstream -S $size -T v" 60 $TCP $PORT \
		"rstream -T v -S $size -C 20 -p $PORT" \
		"rstream -s 127.0.0.1 -T v -S $size -C 20 -p $PORT"
done

# riostream: riomap on both sides, riowrite into the peer's window, which
# the peer watches in memory without calling rsockets at all.
for size in 64 65536; do
	next_port
	cm "riostream -S $size -T v" 60 $TCP $PORT \
		"riostream -T v -S $size -C 50 -p $PORT" \
		"riostream -s 127.0.0.1 -T v -S $size -C 50 -p $PORT"
done
next_port
cm "riostream -T a" 60 $TCP $PORT "riostream -T a -S 4096 -C 50 -p $PORT" \
	"riostream -s 127.0.0.1 -T a -S 4096 -C 50 -p $PORT"

# udpong: datagrams over UD. Its server answers for ever: stopped once
# the client is done. Echo (every datagram answered) and bandwidth.
next_port
CM_KILL_SERVER=1 cm "udpong echo" 60 $UDP $PORT "udpong -T b -p $PORT" \
	"udpong -s 127.0.0.1 -T b -T e -S 1024 -C 200 -p $PORT"
next_port
CM_KILL_SERVER=1 cm "udpong bandwidth" 60 $UDP $PORT "udpong -T b -p $PORT" \
	"udpong -s 127.0.0.1 -T b -S 512 -C 2000 -p $PORT"
# The bandwidth run's last line counts what the server received.
if grep -Eq '^custom +512 ' "$WORK/udpong_bandwidth.client"; then
	ok "udpong bandwidth: the server counted the datagrams"
else
	bad "udpong bandwidth: no result line" "$WORK/udpong_bandwidth.client"
fi

# rcopy: a file of 3 MB, byte for byte. Its server, too, serves for ever.
# (It is the client when its first argument is not an option.)
head -c 3000000 /dev/urandom >"$WORK/src.bin"
next_port
CM_KILL_SERVER=1 cm "rcopy" 60 $TCP $PORT "rcopy -p $PORT" \
	"rcopy $WORK/src.bin 127.0.0.1:$WORK/dst.bin -p $PORT"
if cmp -s "$WORK/src.bin" "$WORK/dst.bin"; then
	ok "rcopy: the copy is identical"
else
	bad "rcopy: the copy differs" "$WORK/rcopy.client"
fi

# librspreload: rstream -T s uses socket(), bind(), accept(), connect(),
# send() and recv() of the C library; Debian's interposer makes them
# rsockets. EMUVERBS_DEBUG=cm shows the connection was an RDMA one (the
# interposer would fall back to TCP if rsockets failed).
pre=$(find /usr/lib -path '*rsocket/librspreload.so*' 2>/dev/null | head -1)
if [ -n "$pre" ]; then
	# Added to what emuverbs run preloads (the sanitizers' runtime in the
	# ASan build, which must come first), not in its place.
	cat >"$WORK/withpre" <<-EOS
	#!/bin/sh
	LD_PRELOAD="\${LD_PRELOAD:+\$LD_PRELOAD }$pre" exec "\$@"
	EOS
	chmod +x "$WORK/withpre"
	for opt in b v; do
		next_port
		cm "librspreload rstream -T s,$opt" 60 $TCP $PORT \
			"$WORK/withpre rstream -T s -T $opt -S 65536 -C 100 \
				-p $PORT" \
			"env EMUVERBS_DEBUG=cm $WORK/withpre rstream -s 127.0.0.1 \
				-T s -T $opt -S 65536 -C 100 -p $PORT"
		expect "librspreload -T $opt: connected over RDMA" \
			"$WORK/librspreload_rstream__T_s_$opt.client" \
			'RDMA_CM_EVENT_ESTABLISHED'
	done
else
	echo "note: librspreload is not installed; not checked"
fi

# Where nothing listens: rstream's client stops by itself, with an error
# (its nonblocking connect ends in POLLERR, which it reports as rpoll's).
next_port
timeout 20 "$EMU" run rstream -s 127.0.0.1 -S 64 -C 1 -p $PORT \
	>"$WORK/refused" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -le 128 ]; then
	expect "rstream where nothing listens: fails cleanly (exit $rc)" \
		"$WORK/refused" 'rpoll|rconnect'
else
	bad "rstream where nothing listens: exit $rc" "$WORK/refused"
fi

finish
