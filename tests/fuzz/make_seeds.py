#!/usr/bin/python3
# Makes the fuzz target's seed corpus (tests/fuzz/seeds/) from captures of
# real RoCEv2 traffic: each UDP payload on port 4791 becomes one seed with
# the control byte fuzz_rx.c reads in front, choosing the QP by transport
# and direction. Opcodes a capture rarely holds (immediates, invalidates,
# XRC, tag-matching headers, CNPs) are derived from captured packets. A few
# seeds for the ring mode (a shared-memory ring as a peer leaves it: byte 0
# with bit 7 set) are made of those packets too.
# Usage: make_seeds.py OUTDIR CAPTURE.pcap...
#        make_seeds.py --rings OUTDIR   (ring seeds from the seeds there)
import os
import struct
import sys
import zlib

T_RC, T_UC, T_UD, T_SRQ, T_TM, T_XRC, T_REQ = range(7)
PER_OPCODE = 4


def target(op, n):
    """The fuzz target for opcode op (the n-th seed of it)."""
    tp, b = op & 0xe0, op & 0x1f
    if tp == 0x20:
        return T_UC
    if tp == 0x60:
        return T_UD
    if tp == 0xa0:
        return T_XRC if b < 0x0d or b > 0x12 else T_REQ
    if 0x0d <= b <= 0x12:
        return T_REQ
    return (T_RC, T_SRQ, T_RC, T_TM)[n % 4]



def set_opcode(pkt, op):
    return bytes([op]) + pkt[1:]


def derived(pkts):
    """(packet, target) pairs for opcodes a capture rarely has, made from
    captured ones; a target of None means the opcode's own."""
    first = {}
    for p in pkts:
        first.setdefault(p[0], p)
    out = []
    send, write = first.get(0x04), first.get(0x0a)
    zero = b'\0' * 4                  # the ICRC, made right by fuzz_rx
    if send:
        bth, body = send[:12], send[12:-4]
        imm = struct.pack('>I', 0xdeadbeef)
        inv = struct.pack('>I', 2)      # stands for window 1's rkey
        xrceth = struct.pack('>I', 0)
        deth = struct.pack('>II', 0x11111111, 0x123)
        out += [(set_opcode(bth, 0x05) + imm + body + zero, None),
                (set_opcode(bth, 0x17) + inv + body + zero, None),
                (set_opcode(bth, 0x16) + inv + body + zero, None),
                (set_opcode(bth, 0xa4) + xrceth + body + zero, None),
                (set_opcode(bth, 0x65) + deth + imm + body + zero, None),
                (set_opcode(bth, 0x81) + b'\0' * 16 + zero, None)]
        # Tag matching: NO_TAG, RNDV on tag 1 (its RVH naming the region),
        # FIN, EAGER on tag 3.
        for op, rvh in ((0, b''), (1, struct.pack('>QII', 0x100, 1, 512)),
                        (2, b''), (3, b'')):
            tmh = struct.pack('>B3xIQ', op, 7, op)
            out.append((set_opcode(bth, 0x04) + tmh + rvh + body[:64] +
                        zero, T_TM))
    if write:
        bth, reth, body = write[:12], write[12:28], write[28:-4]
        imm = struct.pack('>I', 0xfeedface)
        out += [(set_opcode(bth, 0x0b) + reth + imm + body + zero, None),
                (set_opcode(bth, 0xab) + struct.pack('>I', 0) + reth + imm +
                 body + zero, None)]
    return out


RING = 0x80
SLOTS = 1024                            # EMU_SHM_SLOTS


def ring(target, frames, start=0, head=None, tail=0, sleeps=True):
    """A ring-mode input: frames are (payload, length field or None for
    the payload's, sport, tos, ttl); head and tail relative to start, the
    head by default just past the frames."""
    out = struct.pack('<BIIIB', RING | target, start & 0xffffffff,
                      (len(frames) if head is None else head) & 0xffffffff,
                      tail & 0xffffffff, 1 if sleeps else 0)
    for p, length, sport, tos, ttl in frames:
        out += struct.pack('<IHBBH', len(p) if length is None else length,
                           sport, tos, ttl, len(p)) + p
    return out


def psn_offset(pkt, k):
    """pkt with the low 4 bits of its PSN k: fuzz_rx puts the PSN k - 2
    from the one the target expects."""
    return pkt[:11] + bytes([(pkt[11] & 0xf0) | k]) + pkt[12:]


def ring_seeds(seeds):
    """Ring seeds from datagram seeds (control byte first): frames in order
    across the counters' wrap; a length field of garbage next to a good
    frame, under a tail far behind; a head beyond reason."""
    by_op = {}
    for s in seeds:
        if s[0] == T_RC:
            by_op.setdefault(s[1], s[1:])
    send, write = by_op.get(0x04), by_op.get(0x0a)
    if not send:
        return []
    out = []
    frames = [(psn_offset(send, 2), None, 49152, 0x02, 64),
              (psn_offset(send, 3), None, 49152, 0x03, 64)]
    if write:
        # 512 bytes (within the target's 1024-byte MTU) into the region
        # (R_Key 1), 4 KiB in: all three frames land.
        write = (write[:12] + struct.pack('>QII', 0x1000, 1, 512) +
                 write[28:28 + 512] + b'\0' * 4)
        frames.append((psn_offset(write, 4), None, 49152, 0x02, 64))
    out.append(ring(T_RC, frames, start=0xfffffffe))
    out.append(ring(T_RC, [(psn_offset(send, 2), 0xffffffff, 49152, 2, 64),
                           (psn_offset(send, 2), None, 49153, 2, 64)],
                    tail=-5000))
    out.append(ring(T_RC, [(psn_offset(send, 2), None, 49152, 2, 64)],
                    start=7, head=SLOTS + 1, sleeps=False))
    return out


def write_rings(outdir, seeds):
    for s in ring_seeds(seeds):
        name = 'ring-%08x' % zlib.crc32(s)
        with open(os.path.join(outdir, name), 'wb') as f:
            f.write(s)


def main():
    if sys.argv[1] == '--rings':
        outdir = sys.argv[2]
        seeds = []
        for name in sorted(os.listdir(outdir)):
            if not name.startswith('ring-'):
                with open(os.path.join(outdir, name), 'rb') as f:
                    seeds.append(f.read())
        write_rings(outdir, seeds)
        return
    from scapy.all import UDP, rdpcap, raw
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    pkts = []
    for cap in sys.argv[2:]:
        for p in rdpcap(cap):
            if UDP in p and p[UDP].dport in (4791, 14791):
                pkts.append(bytes(raw(p[UDP].payload)))
    count = {}
    seeds = []
    for p, t in [(p, None) for p in pkts] + derived(pkts):
        if len(p) < 16:
            continue
        n = count.get(p[0], 0)
        if n >= PER_OPCODE and t is None:
            continue
        count[p[0]] = n + 1
        seeds.append(bytes([target(p[0], n) if t is None else t]) + p)
    for s in seeds:
        name = '%02x-%08x' % (s[1], zlib.crc32(s))
        with open(os.path.join(outdir, name), 'wb') as f:
            f.write(s)
    write_rings(outdir, seeds)
    print('%d seeds, %d opcodes, from %d packets' %
          (len(seeds), len(count), len(pkts)))


if __name__ == '__main__':
    main()
