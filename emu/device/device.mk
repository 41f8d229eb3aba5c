# emu/device/: the HCA as the host sees it: devices and ports, their
# attributes, configuration and speed model, GID tables and the rtnetlink
# follower that fills them, the emulated subnet, the sysfs view and the
# async event queue.
libemucore_la_SOURCES += \
	emu/device/async.c emu/device/async.h \
	emu/device/attr.c \
	emu/device/config.c emu/device/config.h \
	emu/device/device.c emu/device/device.h \
	emu/device/gid.c emu/device/gid.h \
	emu/device/netlink.c emu/device/netlink.h \
	emu/device/speed.c emu/device/speed.h \
	emu/device/subnet.c emu/device/subnet.h \
	emu/device/sysview.c emu/device/sysview.h
