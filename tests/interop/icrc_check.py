#!/usr/bin/python3
# An ICRC check of its own for every RoCEv2 packet of a pcap, written from
# the RoCEv2 annex of the IBTA spec with zlib's CRC-32 and nothing of the
# project's: counts per direction, exit status 1 if any packet fails.
import socket
import struct
import sys
import zlib

ROCE_PORT = 4791


def packets(path):
    """Yield (number, captured bytes, original length) of a classic pcap."""
    with open(path, 'rb') as f:
        head = f.read(24)
        if len(head) < 24:
            raise SystemExit('%s: not a pcap file' % path)
        magic = head[:4]
        if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
            end = '<'
        elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
            end = '>'
        else:
            raise SystemExit('%s: not a classic pcap (pcapng?)' % path)
        linktype = struct.unpack(end + 'I', head[20:24])[0]
        if linktype != 1:
            raise SystemExit('%s: link type %d, only Ethernet (1) is known'
                             % (path, linktype))
        n = 0
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            caplen, wirelen = struct.unpack(end + 'II', rec[8:16])
            n += 1
            yield n, f.read(caplen), wirelen


def ip_and_udp(frame):
    """Split an Ethernet frame into (ip header, udp datagram, src, dst),
    or None when it is not UDP over IPv4/IPv6."""
    off = 12
    ethertype = struct.unpack('!H', frame[off:off + 2])[0]
    while ethertype in (0x8100, 0x88a8):       # VLAN tags
        off += 4
        ethertype = struct.unpack('!H', frame[off:off + 2])[0]
    ip = frame[off + 2:]
    if ethertype == 0x0800:
        ihl = (ip[0] & 0x0f) * 4
        total = struct.unpack('!H', ip[2:4])[0]
        frag = struct.unpack('!H', ip[6:8])[0]
        if ip[9] != 17:
            return None
        if frag & 0x3fff:
            raise ValueError('IPv4 fragment')
        return (ip[:ihl], ip[ihl:total],
                socket.inet_ntop(socket.AF_INET, ip[12:16]),
                socket.inet_ntop(socket.AF_INET, ip[16:20]))
    if ethertype == 0x86dd:
        plen = struct.unpack('!H', ip[4:6])[0]
        if ip[6] != 17:
            # Extension headers would need rules this check does not have.
            return None
        return (ip[:40], ip[40:40 + plen],
                socket.inet_ntop(socket.AF_INET6, ip[8:24]),
                socket.inet_ntop(socket.AF_INET6, ip[24:40]))
    return None


def masked_ip(hdr):
    """The IP header as the ICRC sees it. IPv4: TOS, TTL and the header
    checksum are ones; identification, flags and offset are covered as
    they are. IPv6: traffic class, flow label and hop limit are ones."""
    h = bytearray(hdr)
    if h[0] >> 4 == 4:
        h[1] = 0xff
        h[8] = 0xff
        h[10:12] = b'\xff\xff'
    else:
        h[0] |= 0x0f
        h[1:4] = b'\xff\xff\xff'
        h[7] = 0xff
    return bytes(h)


def icrc(iphdr, udp):
    """(stored, computed) ICRC of a RoCEv2 datagram (UDP header first)."""
    u = bytearray(udp[:8])
    u[6:8] = b'\xff\xff'                        # UDP checksum
    bth = bytearray(udp[8:20])
    bth[4] = 0xff                               # FECN, BECN, reserved
    crc = zlib.crc32(b'\xff' * 8)               # the LRH a RoCE packet lacks
    crc = zlib.crc32(masked_ip(iphdr), crc)
    crc = zlib.crc32(bytes(u) + bytes(bth), crc)
    crc = zlib.crc32(udp[20:-4], crc)
    stored = struct.unpack('<I', udp[-4:])[0]
    return stored, crc


# Changes to a packet whose ICRC verified: (what, IP version, where,
# xor mask, True if the ICRC must still hold). Offsets count from the IP
# header; negative ones from the end of the datagram, the ICRC excluded.
# The masked fields may change on the way, the others are covered: the
# IPv4 identification and flags among them.
MUTATIONS = [
    ('IPv4 TOS', 4, 1, 0xfc, True),
    ('IPv4 TTL', 4, 8, 0x01, True),
    ('IPv4 header checksum', 4, 10, 0x55, True),
    ('IPv4 identification', 4, 5, 0x01, False),
    ('IPv4 flags', 4, 6, 0x40, False),
    ('IPv4 source address', 4, 15, 0x01, False),
    ('IPv6 traffic class', 6, 1, 0xf0, True),
    ('IPv6 flow label', 6, 3, 0x5a, True),
    ('IPv6 hop limit', 6, 7, 0x01, True),
    ('IPv6 source address', 6, 23, 0x01, False),
    ('UDP checksum', 0, 6, 0x33, True),
    ('UDP source port', 0, 1, 0x01, False),
    ('BTH FECN/BECN/reserved', 0, 12, 0xc0, True),
    ('BTH destination QP', 0, 15, 0x01, False),
    ('BTH PSN', 0, 19, 0x01, False),
    ('last byte before the ICRC', 0, -1, 0x80, False),
]


def self_check(iphdr, udp):
    """Apply MUTATIONS to one good packet; return the ones whose outcome
    is wrong (a masked field that broke it, a covered one that did not)."""
    wrong = []
    version = iphdr[0] >> 4
    for what, v, off, mask, holds in MUTATIONS:
        if v not in (0, version):
            continue
        ip, u = bytearray(iphdr), bytearray(udp)
        if v:
            ip[off] ^= mask
        elif off < 0:
            u[len(u) - 4 + off] ^= mask
        else:
            u[off] ^= mask
        stored, computed = icrc(bytes(ip), bytes(u))
        if (stored == computed) != holds:
            wrong.append(what)
    return wrong


def main():
    if len(sys.argv) != 2:
        raise SystemExit('usage: icrc_check.py CAPTURE.pcap')
    dirs = {}
    problems = []
    checked = {}
    for n, frame, wirelen in packets(sys.argv[1]):
        try:
            if len(frame) < wirelen:
                raise ValueError('captured %d of %d bytes'
                                 % (len(frame), wirelen))
            parts = ip_and_udp(frame)
            if parts is None:
                continue
            iphdr, udp, src, dst = parts
            if struct.unpack('!H', udp[2:4])[0] != ROCE_PORT:
                continue
            key = '%s > %s' % (src, dst)
            d = dirs.setdefault(key, [0, 0])
            if len(udp) < 8 + 12 + 4 or \
               struct.unpack('!H', udp[4:6])[0] != len(udp):
                raise ValueError('UDP length does not hold BTH and ICRC')
            stored, computed = icrc(iphdr, udp)
            if stored == computed:
                d[0] += 1
                if iphdr[0] >> 4 not in checked:
                    checked[iphdr[0] >> 4] = self_check(iphdr, udp)
            else:
                d[1] += 1
                if len(problems) < 10:
                    problems.append('packet %d (%s, opcode 0x%02x, psn %d):'
                                    ' ICRC %08x, computed %08x'
                                    % (n, key, udp[8],
                                       struct.unpack('!I', udp[16:20])[0]
                                       & 0xffffff, stored, computed))
        except (ValueError, IndexError, struct.error) as e:
            dirs.setdefault('unreadable', [0, 0])[1] += 1
            if len(problems) < 10:
                problems.append('packet %d: %s' % (n, e))
    for p in problems:
        print(p)
    for version in sorted(checked):
        wrong = checked[version]
        print('icrc self-check IPv%d: %s' % (version, 'wrong for ' +
              ', '.join(wrong) if wrong else
              'masked fields ignored, covered fields caught'))
    good = bad = 0
    for key in sorted(dirs):
        ok, ko = dirs[key]
        good += ok
        bad += ko
        print('icrc %s: %d packets, %d ok, %d bad' % (key, ok + ko, ok, ko))
    print('icrc total: %d packets, %d ok, %d bad' % (good + bad, good, bad))
    sys.exit(1 if bad or not good or
             any(checked[v] for v in checked) else 0)


main()
