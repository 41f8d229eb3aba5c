# Checks a capture of emuverbs traffic independently of emuverbs: every UDP
# packet to port 4791 must parse as RoCEv2 and scapy's RoCE layer must compute
# the very ICRC the packet carries. Prints N passed, N failed.
# Usage: /usr/bin/python3 wire_check.py CAPTURE.pcap
import collections
import struct
import sys

from scapy.all import rdpcap
from scapy.compat import raw
from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6

pkts = rdpcap(sys.argv[1])
passed = failed = 0
opcodes = collections.Counter()
for n, p in enumerate(pkts, 1):
    if not p.haslayer(UDP) or p[UDP].dport != 4791:
        continue
    if not p.haslayer(BTH):
        failed += 1
        print('FAIL: packet %d: UDP/4791 but no BTH' % n)
        continue
    opcodes[p[BTH].opcode] += 1
    ip = p[IP] if p.haslayer(IP) else p[IPv6]
    wire = raw(ip)
    carried = struct.unpack('<I', wire[-4:])[0]
    # Let scapy build the packet again with the ICRC left for it to fill.
    q = ip.copy()
    q[BTH].icrc = None
    theirs = struct.unpack('<I', raw(q)[-4:])[0]
    if p.haslayer(IPv6) and theirs == 0:
        print('SKIP: packet %d: this scapy has no IPv6 ICRC' % n)
        continue
    if theirs == carried:
        passed += 1
    else:
        failed += 1
        print('FAIL: packet %d opcode 0x%02x: ICRC %08x, scapy %08x' %
              (n, p[BTH].opcode, carried, theirs))
print('opcodes seen: ' + ', '.join('0x%02x x%d' % kv
                                   for kv in sorted(opcodes.items())))
if passed + failed == 0:
    print('FAIL: no RoCEv2 packet in the capture')
    failed = 1
print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
