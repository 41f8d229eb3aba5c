# emu/device/: the HCA and its ports as the host sees them, and the links
# they sit on: devices and ports, configuration, the speed model, the link
# model and its fault rules, GID tables and the rtnetlink follower that
# fills them, the emulated subnet and the async event queue.
libemucore_la_SOURCES += \
	emu/device/async.c emu/device/async.h \
	emu/device/config.c emu/device/config.h \
	emu/device/config_env.c \
	emu/device/config_grammar.c \
	emu/device/config_int.h \
	emu/device/config_keys.c \
	emu/device/config_section.c \
	emu/device/config_value.c \
	emu/device/dev_count.c emu/device/dev_count.h \
	emu/device/device.c emu/device/device.h \
	emu/device/fault.h \
	emu/device/fault_rule.c \
	emu/device/gid.c emu/device/gid.h \
	emu/device/link.c emu/device/link.h \
	emu/device/netlink.c emu/device/netlink.h \
	emu/device/observer.c emu/device/observer.h \
	emu/device/speed.c emu/device/speed.h \
	emu/device/subnet.c emu/device/subnet.h
