# Run through `emuverbs run` with Debian's python3-pyverbs: the process's
# /dev/infiniband and /sys/class/infiniband{,_verbs} say what the verbs
# say to the same process. Prints PASS/FAIL lines and N passed, N failed.
import os
import socket
import stat
import subprocess
import sys

import pyverbs.device as d

passed = failed = 0
IB = '/sys/class/infiniband/'


def check(name, cond, detail=''):
    global passed, failed
    if cond:
        passed += 1
        print('PASS: ' + name)
    else:
        failed += 1
        print('FAIL: %s %s' % (name, detail))


def read(path):
    with open(path) as f:
        text = f.read()
    assert text.endswith('\n'), path
    return text[:-1]


def same(name, path, want):
    try:
        got = read(path)
    except OSError as e:
        got = e
    check(name, got == want, '%s: %r, not %r' % (path, got, want))


def guid(be64):
    # pyverbs hands the __be64 over as the int of its bytes in memory
    raw = be64.to_bytes(8, sys.byteorder)
    return ':'.join(raw[i:i + 2].hex() for i in range(0, 8, 2))


devs = [x.name.decode() for x in d.get_device_list()]
check('sysfs lists the devices the verbs list',
      sorted(os.listdir(IB)) == sorted(devs), (os.listdir(IB), devs))
ctx = d.Context(name='emu0')
attr = ctx.query_device()
dev = IB + 'emu0/'
same('node_guid', dev + 'node_guid', guid(attr.node_guid))
same('sys_image_guid', dev + 'sys_image_guid', guid(attr.sys_image_guid))
same('fw_ver', dev + 'fw_ver', attr.fw_version)
same('node_type', dev + 'node_type', '1: CA')
same('hw_rev', dev + 'hw_rev', '%x' % attr.hw_ver)
same('node_desc', dev + 'node_desc', socket.gethostname() + ' emu0')
check('one port directory per port',
      os.listdir(dev + 'ports') == [str(attr.phys_port_cnt)],
      os.listdir(dev + 'ports'))

port = ctx.query_port(1)
p = dev + 'ports/1/'
states = {1: 'DOWN', 2: 'INIT', 3: 'ARMED', 4: 'ACTIVE'}
same('state', p + 'state', '%d: %s' % (port.state, states[port.state]))
same('phys_state', p + 'phys_state', '5: LinkUp')
same('link_layer', p + 'link_layer',
     'Ethernet' if port.link_layer == 2 else 'InfiniBand')
same('lid', p + 'lid', '0x%x' % port.lid)
same('sm_lid', p + 'sm_lid', '0x%x' % port.sm_lid)
same('lid_mask_count', p + 'lid_mask_count', '%d' % port.lmc)
same('cap_mask', p + 'cap_mask', '0x%08x' % port.port_cap_flags)
# ibv_devinfo's speed (EDR = 32) and width (4X = 2) make 4x 25 Gb/s.
check('rate is the 4x EDR the port reports',
      (port.active_speed, port.active_width) == (32, 2) and
      read(p + 'rate') == '100 Gb/sec (4X EDR)',
      (port.active_speed, port.active_width, read(p + 'rate')))

table = {e.gid_index: e for e in ctx.query_gid_table(port.gid_tbl_len)}
check('gids/ has one file per table slot',
      len(os.listdir(p + 'gids')) == port.gid_tbl_len,
      len(os.listdir(p + 'gids')))
for i in range(port.gid_tbl_len):
    e = table.get(i)
    if e is None:
        same('gids/%d empty' % i, p + 'gids/%d' % i, ':'.join(['0000'] * 8))
        check('types/%d absent' % i,
              not os.path.exists(p + 'gid_attrs/types/%d' % i))
        continue
    same('gids/%d' % i, p + 'gids/%d' % i, e.gid_str())
    same('types/%d' % i, p + 'gid_attrs/types/%d' % i,
         'RoCE v2' if e.gid_type == 2 else 'IB/RoCE v1')
    same('ndevs/%d' % i, p + 'gid_attrs/ndevs/%d' % i,
         socket.if_indextoname(e.ndev_ifindex))
check('GID 0 is this process\'s own address',
      0 in table and table[0].gid_str().startswith(
          '0000:0000:0000:0000:0000:ffff:7f'))
same('pkeys/0', p + 'pkeys/0', '0x%04x' % ctx.query_pkey(1, 0))

uv = '/sys/class/infiniband_verbs/'
same('class abi_version', uv + 'abi_version', '6')
same('uverbs0/ibdev', uv + 'uverbs0/ibdev', 'emu0')
node = os.stat('/dev/infiniband/uverbs0')
check('uverbs0 is a character device', stat.S_ISCHR(node.st_mode))
check('uverbs0 opens for reading and writing',
      os.access('/dev/infiniband/uverbs0', os.R_OK | os.W_OK))
same('uverbs0/dev', uv + 'uverbs0/dev',
     '%d:%d' % (os.major(node.st_rdev), os.minor(node.st_rdev)))
check('one uverbs node per device',
      sorted(os.listdir('/dev/infiniband')) ==
      ['uverbs%d' % i for i in range(len(devs))],
      os.listdir('/dev/infiniband'))

# Processes sharing one view (a shell pipeline, mpirun): each rewrites it
# with its own GIDs when it discovers or opens the device, so it shows the
# one that did so last.
mine = read(p + 'gids/0')
subprocess.run(['ibv_devices'], stdout=subprocess.DEVNULL, check=True)
theirs = read(p + 'gids/0')
check('another process shows its own GID',
      theirs != mine and theirs.startswith(mine[:32]), (mine, theirs))
ctx2 = d.Context(name='emu0')
same('opening again shows ours', p + 'gids/0', mine)
ctx2.close()

print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
