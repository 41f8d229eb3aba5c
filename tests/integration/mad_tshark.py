# Checks what tshark decodes of the capture mad_pcap writes: every frame a
# RoCEv2 UD SEND to QP 1 carrying a CM MAD, every field Wireshark's CM
# dissector knows equal to the value mad_pcap.c packed (typed in again
# here), and for the messages it only names (MRA, SIDR, LAP, APR) the raw
# MAD data bytes as IBTA's tables place them.
# Usage: /usr/bin/python3 mad_tshark.py CAPTURE.pcap
import json
import subprocess
import sys

cap = sys.argv[1]
passed = failed = 0
notes = []


def ok(what):
    global passed
    passed += 1


def bad(what):
    global failed
    failed += 1
    print('FAIL: ' + what)


def walk(node, out):
    """First value of every field name, however deep (duplicates kept)."""
    if isinstance(node, list):
        for item in node:
            if isinstance(item, tuple) and len(item) == 2:
                key, value = item
                if isinstance(value, str):
                    out.setdefault(key, value)
                else:
                    walk(value, out)
            else:
                walk(item, out)


def tshark(*args):
    return subprocess.run(['tshark', '-r', cap] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          check=True, universal_newlines=True).stdout


frames = []
for pkt in json.loads(tshark('-T', 'json'),
                      object_pairs_hook=lambda pairs: pairs):
    fields = {}
    walk(pkt, fields)
    frames.append(fields)
info = [line.split('\t', 1)[1] if '\t' in line else ''
        for line in tshark('-T', 'fields', '-e', 'frame.number',
                           '-e', '_ws.col.Info').splitlines()]


def same(got, want):
    if isinstance(want, int):
        try:
            return int(got, 0) == want
        except ValueError:
            return False
    return got == want


def check(n, name, want):
    got = frames[n - 1].get(name)
    if got is not None and same(got, want):
        ok(name)
    else:
        bad('frame %d: %s is %r, want %r' % (n, name, got,
                                            hex(want) if isinstance(want, int)
                                            else want))


def data(n):
    """The 232 bytes of MAD data after the common header."""
    return bytes.fromhex(frames[n - 1].get('infiniband.mad.data', '')
                         .replace(':', ''))


def check_bytes(n, what, off, want):
    got = data(n)[off:off + len(want)]
    if got == want:
        ok(what)
    else:
        bad('frame %d: %s bytes %s, want %s' % (n, what, got.hex(),
                                                want.hex()))


def check_req_path_word(n, prefix, off, flow_label, rate):
    """
    Flow label (20 bits), 6 reserved, packet rate (6) at message byte off.
    Wireshark 4.0 reads the flow label from 3 bytes under a 32-bit mask
    (showing flow_label >> 8) and the rate from the word's first byte; a
    fixed Wireshark shows the values themselves. Either is accepted, and
    the four bytes are checked as IBTA lays them out.
    """
    word = (flow_label << 12 | rate).to_bytes(4, 'big')
    check_bytes(n, prefix + ' flow label / packet rate word', off, word)
    fl = frames[n - 1].get('infiniband.cm.req.%s_flowlabel' % prefix)
    pr = frames[n - 1].get('infiniband.cm.req.%s_pktrate' % prefix)
    if fl is None or pr is None:
        bad('frame %d: no %s flow label or packet rate' % (n, prefix))
        return
    if int(fl, 0) == flow_label and int(pr, 0) == rate:
        ok('flow label')
    elif int(fl, 0) == flow_label >> 8 and int(pr, 0) == word[0] & 0x3f:
        ok('flow label (misread)')
        note = ('tshark misreads the REQ flow label and packet rate '
                '(Wireshark bug: 3-byte item, 32-bit mask)')
        if note not in notes:
            notes.append(note)
    else:
        bad('frame %d: %s flow label %s packet rate %s, want %#x %#x' %
            (n, prefix, fl, pr, flow_label, rate))


# Frame, attribute ID, TID, the Info column tshark writes.
mads = [
    (1, 0x0010, 0x0123456789abcdef, 'ConnectRequest'),
    (2, 0x0010, 1, 'ConnectRequest'),
    (3, 0x0011, 3, 'MsgRcptAck'),
    (4, 0x0012, 4, 'ConnectReject'),
    (5, 0x0013, 0x0123456789abcdef, 'ConnectReply'),
    (6, 0x0014, 6, 'ReadyToUse'),
    (7, 0x0015, 7, 'DisconnectRequest'),
    (8, 0x0016, 8, 'DisconnectReply'),
    (9, 0x0017, 9, 'ServiceIDResReq'),
    (10, 0x0018, 10, 'ServiceIDResReqResp'),
    (11, 0x0019, 11, 'LoadAlternatePath'),
    (12, 0x001a, 12, 'AlternatePathResponse'),
]
if len(frames) != len(mads):
    bad('%d frames, want %d' % (len(frames), len(mads)))
    sys.exit(1)

for n, attr, tid, name in mads:
    check(n, 'infiniband.bth.opcode', 100)		# UD SEND only
    check(n, 'infiniband.bth.destqp', 1)
    check(n, 'infiniband.bth.p_key', 0xffff)
    check(n, 'infiniband.deth.q_key', 0x80010000)
    check(n, 'infiniband.deth.srcqp', 1)
    check(n, 'infiniband.mad.baseversion', 1)
    check(n, 'infiniband.mad.mgmtclass', 0x07)
    check(n, 'infiniband.mad.classversion', 2)
    check(n, 'infiniband.mad.method', 0x03)		# Send
    check(n, 'infiniband.mad.status', 0)
    check(n, 'infiniband.mad.transactionid', tid)
    check(n, 'infiniband.mad.attributeid', attr)
    check(n, 'infiniband.mad.attributemodifier', 0)
    if 'CM: ' + name in info[n - 1]:
        ok('info')
    else:
        bad('frame %d: info %r, want CM: %s' % (n, info[n - 1], name))

R = 'infiniband.cm.req.'
# Frame 1: REQ, RC, IPv4 IP CM header.
for name, want in [
        ('infiniband.cm.req', 0x11223344),
        ('serviceid', 0x0000000001064853), ('serviceid.protocol', 0x06),
        ('serviceid.dport', 18515), ('localcaguid', 0x0002c90300a1b2c3),
        ('localqkey', 0x0badcafe), ('localqpn', 0xabcdef),
        ('responderres', 0x10), ('localeecn', 0), ('initdepth', 0x20),
        ('remoteeecn', 0), ('remoteresptout', 31), ('transpsvctype', 0),
        ('e2eflowctrl', 1), ('startpsn', 0xffffff), ('localresptout', 0),
        ('retrcount', 7), ('pkey', 0xffff), ('pppmtu', 5),
        ('rdcexist', 0), ('rnrretrcount', 7), ('maxcmretr', 15),
        ('srq', 0), ('ext_transport', 0), ('prim_locallid', 0xffff),
        ('prim_remotelid', 0), ('prim_localgid_ipv4', '192.0.2.1'),
        ('prim_remotegid_ipv4', '192.0.2.2'), ('prim_tfcclass', 0xa5),
        ('prim_hoplim', 0x40), ('prim_sl', 15), ('prim_subnetlocal', 1),
        ('prim_localacktout', 31), ('alt_locallid', 0),
        ('alt_localacktout', 0), ('ip_cm.majv', 0), ('ip_cm.minv', 0),
        ('ip_cm.ipv', 4), ('ip_cm.sport', 40000),
        ('ip_cm.sip4', '192.0.2.1'), ('ip_cm.dip4', '192.0.2.2')]:
    check(1, name if name.startswith('infiniband') else R + name, want)
check_req_path_word(1, 'prim', 88, 0xfffff, 0x3f)
check_bytes(1, 'consumer private data', 140 + 36, b'emu\0')

# Frame 2: REQ, XRC, the bits against frame 1's, IPv6 IP CM header. The
# GIDs show as IPv4 (their last 4 bytes) because the packet is IPv4.
for name, want in [
        ('infiniband.cm.req', 0xffffffff),
        ('serviceid', 0x0000000001110001), ('serviceid.protocol', 0x11),
        ('serviceid.dport', 1), ('localcaguid', 0xffffffffffffffff),
        ('localqkey', 0xffffffff), ('localqpn', 1),
        ('responderres', 0xff), ('localeecn', 0xffffff), ('initdepth', 0),
        ('remoteeecn', 0x123456), ('remoteresptout', 0),
        ('transpsvctype', 3), ('e2eflowctrl', 0), ('startpsn', 0),
        ('localresptout', 31), ('retrcount', 0), ('pkey', 0x8001),
        ('pppmtu', 1), ('rdcexist', 1), ('rnrretrcount', 0),
        ('maxcmretr', 0), ('srq', 1), ('ext_transport', 1),
        ('prim_locallid', 1), ('prim_remotelid', 0xfffe),
        ('prim_localgid_ipv4', '0.0.0.1'),
        ('prim_remotegid_ipv4', '0.0.0.2'), ('prim_tfcclass', 0),
        ('prim_hoplim', 0xff), ('prim_sl', 0), ('prim_subnetlocal', 0),
        ('prim_localacktout', 0), ('alt_locallid', 0x1234),
        ('alt_remotelid', 0xfffe),
        ('alt_localgid', '20:01:0d:b8:00:00:00:00:00:00:00:00:00:00:00:0a'),
        ('alt_remotegid', '20:01:0d:b8:00:00:00:00:00:00:00:00:00:00:00:0b'),
        ('alt_tfcclass', 0), ('alt_hoplim', 0xff), ('alt_sl', 5),
        ('alt_subnetlocal', 0), ('alt_localacktout', 14),
        ('ip_cm.majv', 0), ('ip_cm.minv', 0), ('ip_cm.ipv', 6),
        ('ip_cm.sport', 65535), ('ip_cm.sip6', '2001:db8::1'),
        ('ip_cm.dip6', '2001:db8::2')]:
    check(2, name if name.startswith('infiniband') else R + name, want)
check_req_path_word(2, 'prim', 88, 0x12345, 1)
check_req_path_word(2, 'alt', 132, 0xabcde, 1)

# Frame 3: MRA (table 107), which tshark does not decode field by field.
check_bytes(3, 'MRA', 0, bytes([1, 2, 3, 4, 5, 6, 7, 8,
                                0x40,	# message MRAed: REP (01)
                                0xa0]))	# service timeout 20 (10100)

# Frame 4: REJ.
for name, want in [
        ('localcommid', 0xcafef00d), ('remotecommid', 0x11223344),
        ('msgrej', 0), ('rejinfolen', 3), ('reason', 28)]:
    check(4, 'infiniband.cm.rej.' + name, want)
if frames[3].get('infiniband.cm.rej.ari', '').startswith('aa:bb:cc:00'):
    ok('ari')
else:
    bad('frame 4: ARI %r' % frames[3].get('infiniband.cm.rej.ari'))
if frames[3].get('infiniband.cm.rej.private', '').startswith('6e:6f:00'):
    ok('rej private data')
else:
    bad('frame 4: private data %r' % frames[3].get('infiniband.cm.rej.private'))

# Frame 5: REP.
for name, want in [
        ('infiniband.cm.rep', 0xcafef00d), ('remotecommid', 0x11223344),
        ('localqkey', 0x80010000), ('localqpn', 0xfedcba),
        ('localeecn', 0x000102), ('startpsn', 0x654321), ('respres', 4),
        ('initdepth', 8), ('tgtackdelay', 31), ('failoveracc', 2),
        ('e2eflowctrl', 1), ('rnrretrcount', 7), ('srq', 0),
        ('localcaguid', 0x0002c90300d4e5f6)]:
    check(5, name if name.startswith('infiniband') else
          'infiniband.cm.rep.' + name, want)

# Frames 6-8: RTU, DREQ (tshark files its remote QPN under req), DREP.
check(6, 'infiniband.cm.rtu.localcommid', 0x11223344)
check(6, 'infiniband.cm.rtu.remotecommid', 0xcafef00d)
check(7, 'infiniband.cm.dreq.localcommid', 0x11223344)
check(7, 'infiniband.cm.dreq.remotecommid', 0xcafef00d)
check(7, 'infiniband.cm.req.remoteqpneecn', 0xfedcba)
check(8, 'infiniband.cm.drsp.localcommid', 0xcafef00d)
check(8, 'infiniband.cm.drsp.remotecommid', 0x11223344)

# Frames 9-12: SIDR_REQ (119), SIDR_REP (120), LAP (115), APR (116).
check_bytes(9, 'SIDR_REQ', 0, bytes.fromhex(
    '00000099'			# request ID
    'ffff0000'			# P_Key, reserved
    '0000000001111d2f'		# service ID: UDP port space, port 7471
    '004004d2'))		# IP CM header: v0, IPv4, source port 1234
check_bytes(10, 'SIDR_REP', 0, bytes.fromhex(
    '00000099'			# request ID
    '00000000'			# status, info length, reserved
    '000abc00'			# QPN, reserved
    '0000000001111d2f'		# service ID
    '01234567'))		# Q_Key
check_bytes(11, 'LAP', 0, bytes.fromhex(
    '00000001' '00000000'	# local, remote comm ID
    '00000000' '00000000'	# reserved, remote QPN and timeout
    '00000000' '00010000'))	# reserved, alternate local/remote LID
check_bytes(12, 'APR', 0, bytes.fromhex(
    '00000001' '00000000' '00000000'))

for note in notes:
    print('NOTE: ' + note)
print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
