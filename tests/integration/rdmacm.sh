#!/bin/sh
# Debian's unmodified rdma_cm programs (rdmacm-utils, perftest's -R, pyverbs'
# cmid, libfabric's verbs provider) through `emuverbs run`: they load our
# librdmacm.so.1, not Debian's, and, with no connection manager behind it
# yet, fail cleanly at their first call: an error message and an exit
# status, never a crash or a hang.
. "$(dirname "$0")/lib.sh"
need rping

ours="$top_builddir/.libs/librdmacm.so.1"
[ -f "$ours" ] || { bad "no $ours (build first)"; finish; exit 1; }

# Which librdmacm and libibverbs the dynamic loader initialises for rping.
LD_DEBUG=libs timeout 20 "$EMU" run rping -s >"$WORK/ld.out" 2>&1
grep 'calling init: .*/librdmacm\.so' "$WORK/ld.out" |
	sed 's/.*calling init: //' | sort -u >"$WORK/ld.rdmacm"
grep 'calling init: .*/libibverbs\.so' "$WORK/ld.out" |
	sed 's/.*calling init: //' | sort -u >"$WORK/ld.verbs"
if [ "$(cat "$WORK/ld.rdmacm")" = "$ours" ]; then
	ok "rping loads our librdmacm.so.1 and no other"
else
	bad "rping loads our librdmacm.so.1 and no other" "$WORK/ld.rdmacm"
fi
if [ "$(cat "$WORK/ld.verbs")" = "$top_builddir/.libs/libibverbs.so.1" ]; then
	ok "rping loads our libibverbs.so.1 and no other"
else
	bad "rping loads our libibverbs.so.1 and no other" "$WORK/ld.verbs"
fi

# fails NAME REGEX PROGRAM ARGS...: PROGRAM stops by itself within 20 s with
# a nonzero exit status that is no signal's, saying REGEX. 124 is timeout's
# own status; 129 ... 192 are 128 plus a signal number (SIGSEGV, SIGABRT).
fails() {
	_n=$1
	_re=$2
	shift 2
	if ! command -v "$1" >/dev/null 2>&1; then
		echo "note: $1 is not installed; not checked"
		return 0
	fi
	timeout 20 "$EMU" run "$@" >"$WORK/out" 2>&1
	_rc=$?
	if [ "$_rc" -eq 0 ]; then
		bad "$_n: exit status 0 with no connection manager" "$WORK/out"
	elif [ "$_rc" -eq 124 ]; then
		bad "$_n: still running after 20 s" "$WORK/out"
	elif [ "$_rc" -gt 128 ] && [ "$_rc" -le 192 ]; then
		bad "$_n: killed by signal $((_rc - 128))" "$WORK/out"
	else
		expect "$_n: fails cleanly (exit $_rc)" "$WORK/out" "$_re"
	fi
}

# The rdma_cm programs stop at rdma_create_event_channel().
nochan='failed to create RDMA CM event channel: Function not implemented'
fails "rping -s" "$nochan" rping -s -v
fails "rping -c" "$nochan" rping -c -a 127.0.0.1 -v
fails "ucmatose" "$nochan" ucmatose
fails "ucmatose -s" "$nochan" ucmatose -s 127.0.0.1
fails "udaddy" "$nochan" udaddy
fails "mckey" "$nochan" mckey -m 239.1.1.1
fails "cmtime" "$nochan" cmtime -s 127.0.0.1
fails "ib_send_lat -R" 'rdma_create_event_channel failed' \
	ib_send_lat -R -d emu0
# The rdma_getaddrinfo() ones there: -1 with errno, which these programs
# print with gai_strerror() (EAI_BADFLAGS is -1), as they do on rdma-core.
fails "rdma_server" '^rdma_getaddrinfo: ' rdma_server
fails "rdma_client" '^rdma_getaddrinfo: ' rdma_client -s 127.0.0.1
fails "rdma_xserver" '^rdma_getaddrinfo: ' rdma_xserver
fails "rdma_xclient" '^rdma_getaddrinfo: ' rdma_xclient -s 127.0.0.1
# The rsocket ones at rsocket().
nosock='rsocket failed: Function not implemented'
fails "rstream" "$nosock" rstream
fails "riostream" "$nosock" riostream -s 127.0.0.1
fails "udpong" "$nosock" udpong
fails "rcopy" "$nosock" rcopy "$WORK/ld.out" 127.0.0.1

# pyverbs' cmid module binds every librdmacm symbol it uses when it loads;
# its event channel is refused with ENOSYS.
if /usr/bin/python3 -c 'import pyverbs.cmid' 2>/dev/null; then
	timeout 20 "$EMU" run /usr/bin/python3 -c '
from pyverbs.cmid import CMEventChannel
from pyverbs.pyverbs_error import PyverbsRDMAError
try:
    CMEventChannel()
    print("created")
except PyverbsRDMAError as e:
    print("refused errno", e.error_code)
' >"$WORK/out" 2>&1
	expect "pyverbs CMEventChannel: refused with ENOSYS" "$WORK/out" \
		'^refused errno 38$'
else
	echo "note: pyverbs.cmid is not importable; not checked"
fi

# libfabric's verbs provider asks our rdma_get_devices() and goes without.
if command -v fi_info >/dev/null 2>&1; then
	FI_LOG_LEVEL=warn timeout 30 "$EMU" run fi_info -p verbs \
		>"$WORK/out" 2>&1
	rc=$?
	if [ "$rc" -eq 124 ] ||
		{ [ "$rc" -gt 128 ] && [ "$rc" -le 192 ]; }; then
		bad "fi_info -p verbs: exit $rc" "$WORK/out"
	else
		expect "fi_info -p verbs: rdma_get_devices refused, no crash" \
			"$WORK/out" 'rdma_get_devices: Function not implemented'
	fi
else
	echo "note: fi_info (libfabric-bin) is not installed; not checked"
fi
finish
