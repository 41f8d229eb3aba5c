# Debian's python3-pyverbs, unmodified, against the emulated device: lists
# it, opens it and reads the GID table with query_gid_table / query_gid_ex.
# Run with /usr/bin/python3 through `emuverbs run`; prints N passed, N failed.
import errno
import sys

import pyverbs.device as d
from pyverbs.pyverbs_error import PyverbsRDMAError

passed = failed = 0


def check(name, cond, detail=''):
    global passed, failed
    if cond:
        passed += 1
        print('PASS: ' + name)
    else:
        failed += 1
        print('FAIL: %s %s' % (name, detail))


devs = d.get_device_list()
names = [x.name.decode() for x in devs]
check('get_device_list finds emu0', 'emu0' in names, names)

ctx = d.Context(name='emu0')
attr = ctx.query_device()
check('query_device: one port', attr.phys_port_cnt == 1, attr.phys_port_cnt)
port = ctx.query_port(1)
check('query_port: ACTIVE', port.state == 4, port.state)
check('query_port: Ethernet', port.link_layer == 2, port.link_layer)

table = ctx.query_gid_table(port.gid_tbl_len)
check('query_gid_table: two entries (RoCEv2 and v1)', len(table) == 2,
      len(table))
for e in table:
    ex = ctx.query_gid_ex(port_num=e.port_num, gid_index=e.gid_index)
    check('query_gid_ex agrees at index %d' % e.gid_index,
          (ex.gid_str(), ex.gid_type, ex.ndev_ifindex) ==
          (e.gid_str(), e.gid_type, e.ndev_ifindex))
v2 = [e for e in table if e.gid_index == 0]
check('GID 0 is RoCEv2 ::ffff:127.x', bool(v2) and v2[0].gid_type == 2 and
      v2[0].gid_str().startswith('0000:0000:0000:0000:0000:ffff:7f'),
      [(e.gid_index, e.gid_str(), e.gid_type) for e in table])


def rdma_errno(fn):
    try:
        fn()
    except PyverbsRDMAError as ex:
        return ex.error_code
    return 0


check('query_gid_ex on an empty slot: ENODATA',
      rdma_errno(lambda: ctx.query_gid_ex(port_num=1, gid_index=5))
      == errno.ENODATA)
check('query_gid_ex past the table: EINVAL',
      rdma_errno(lambda: ctx.query_gid_ex(port_num=1, gid_index=4096))
      == errno.EINVAL)
check('query_gid_ex bad port: EINVAL',
      rdma_errno(lambda: ctx.query_gid_ex(port_num=9, gid_index=0))
      == errno.EINVAL)
check('query_gid_table with too small a buffer fails',
      rdma_errno(lambda: ctx.query_gid_table(1)) != 0)
ctx.close()

print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
