#!/bin/sh
# CM MADs as Wireshark sees them: mad_pcap packs one MAD of each kind with
# cm/mad.h into RoCEv2 UD packets to QP 1; tshark must decode all of them
# as InfiniBand CM with nothing malformed and with the field values packed
# (mad_tshark.py), and scapy's ICRC must equal ours (wire_check.py).
# Needs no root and no network: it only reads a file.
. "$(dirname "$0")/lib.sh"
need tshark /usr/bin/python3
cap="$WORK/mad.pcap"
if ! "$top_builddir/tests/integration/mad_pcap" "$cap"; then
	bad "mad_pcap writes the capture"
	finish
	exit 1
fi

total=$(tshark -r "$cap" 2>/dev/null | wc -l)
cm=$(tshark -r "$cap" -Y 'infiniband.mad.mgmtclass == 0x07' 2>/dev/null |
	wc -l)
if [ "$total" -eq 12 ] && [ "$cm" -eq 12 ]; then
	ok "tshark decodes all 12 packets as CM MADs"
else
	bad "tshark decodes all 12 packets as CM MADs ($cm of $total)"
fi
# 8388608 is the expert severity "error"; an invalid filter exits non-zero,
# so this cannot pass by matching nothing.
if tshark -r "$cap" -Y '_ws.malformed || _ws.expert.severity >= 8388608' \
	>"$WORK/malformed" 2>"$WORK/tshark.err"; then
	reject "tshark: no malformed or expert-error packet" \
		"$WORK/malformed" '.'
else
	bad "tshark: the malformed/expert filter ran" "$WORK/tshark.err"
fi
if /usr/bin/python3 "$top_srcdir/tests/integration/mad_tshark.py" "$cap" \
	>"$WORK/fields" 2>&1; then
	ok "tshark's decoded fields equal the packed ones ($(tail -1 \
		"$WORK/fields"))"
	grep '^NOTE' "$WORK/fields"
else
	bad "tshark's decoded fields equal the packed ones" "$WORK/fields"
fi
if /usr/bin/python3 -c 'import scapy.contrib.roce' 2>/dev/null; then
	if /usr/bin/python3 "$top_srcdir/tests/integration/wire_check.py" \
		"$cap" >"$WORK/icrc" 2>&1; then
		ok "scapy's ICRC equals ours ($(tail -1 "$WORK/icrc"))"
	else
		bad "scapy's ICRC equals ours" "$WORK/icrc"
	fi
else
	echo "(python3-scapy is not installed: ICRC not cross-checked)"
fi
finish
