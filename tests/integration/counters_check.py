#!/usr/bin/python3
"""Counters against the wire: every packet tshark decoded from a capture,
classified here from its BTH opcode, destination QP and AETH syndrome (by
the IBTA's tables, not the emulator's), counted per sending and per
receiving address, class and NAK kind, must equal the counters the
processes logged as they closed their devices (EMUVERBS_DEBUG=xport),
summed per address. Prints a PASS or FAIL line per comparison.

usage: counters_check.py FIELDS LOG...
FIELDS: tshark -T fields of ip.src ip.dst udp.length infiniband.bth.opcode
infiniband.bth.destqp infiniband.aeth.syndrome, space-separated."""
import collections
import re
import sys

CLASSES = ("send", "write", "read_req", "read_resp", "atomic", "ack", "nak",
           "cnp", "cm", "other")
NAKS = {0: "psn_seq", 1: "inv_req", 2: "rem_access", 3: "rem_op",
        4: "inv_req"}


def classify(opcode, destqp, syndrome):
    """The class and NAK kind (or None) of one packet."""
    if opcode == 0x81:
        return "cnp", None
    if destqp == 1:
        return "cm", None
    op = opcode & 0x1f
    if op in (0x12, 0x13, 0x14):
        return "atomic", None
    if op == 0x11:
        kind = (syndrome >> 5) & 3
        if kind == 0:
            return "ack", None
        if kind == 1:
            return "nak", "rnr"
        if kind == 3:
            return "nak", NAKS.get(syndrome & 0x1f, "other")
        return "nak", "other"
    if op == 0x0c:
        return "read_req", None
    if 0x0d <= op <= 0x10:
        return "read_resp", None
    if 0x06 <= op <= 0x0b:
        return "write", None
    if op <= 0x05 or op in (0x16, 0x17):
        return "send", None
    return "other", None


def wire(path):
    """Per address, what the capture says it sent (tx) and received (rx)."""
    count = collections.defaultdict(collections.Counter)
    for line in open(path):
        f = line.split()
        if len(f) < 5:
            continue
        src, dst, ulen, opcode, destqp = f[:5]
        syn = int(f[5], 0) if len(f) > 5 else 0
        cls, nak = classify(int(opcode, 0), int(destqp, 0), syn)
        for addr, d in ((src, "tx"), (dst, "rx")):
            c = count[addr]
            c[d + "_pkts"] += 1
            c[d + "_bytes"] += int(ulen) - 8
            c["%s_%s_pkts" % (d, cls)] += 1
            if nak:
                c["%s_nak_%s" % (d, nak)] += 1
    return count


def logged(paths):
    """Per address, the counters the processes logged, summed."""
    count = collections.defaultdict(collections.Counter)
    pat = re.compile(r"xport: \S+ (\S+): counters (.*)")
    for p in paths:
        for line in open(p, errors="replace"):
            m = pat.search(line)
            if not m:
                continue
            for word in m.group(2).split():
                k, v = word.split("=")
                count[m.group(1)][k] += int(v)
    return count


def main():
    seen = wire(sys.argv[1])
    got = logged(sys.argv[2:])
    passed = failed = 0

    def check(name, have, want):
        nonlocal passed, failed
        if have == want:
            passed += 1
            print("PASS: %s: %d" % (name, have))
        else:
            failed += 1
            print("FAIL: %s: counters %d, capture %d" % (name, have, want))

    if not seen or set(seen) != set(got):
        failed += 1
        print("FAIL: the same addresses in the capture (%s) and the logs "
              "(%s)" % (sorted(seen), sorted(got)))
    for addr in sorted(seen):
        w, c = seen[addr], got[addr]
        check(addr + " sent_pkts", c["sent_pkts"], w["tx_pkts"])
        check(addr + " tx_wire_pkts", c["tx_wire_pkts"], w["tx_pkts"])
        check(addr + " rdma_tx_bytes", c["rdma_tx_bytes"], w["tx_bytes"])
        check(addr + " rcvd_pkts", c["rcvd_pkts"], w["rx_pkts"])
        check(addr + " rdma_rx_bytes", c["rdma_rx_bytes"], w["rx_bytes"])
        for d in ("tx", "rx"):
            for cls in CLASSES:
                k = "%s_%s_pkts" % (d, cls)
                check(addr + " " + k, c[k], w[k])
            for nak in ("psn_seq", "rnr", "rem_access", "rem_op",
                        "inv_req", "other"):
                k = "%s_nak_%s" % (d, nak)
                check(addr + " " + k, c[k], w[k])
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
