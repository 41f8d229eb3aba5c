# The emulated HCA core: devices, ports, contexts, async events, engine.
libemucore_la_SOURCES += emu/device.c emu/device.h emu/attr.c \
	emu/async.c emu/async.h emu/engine.c emu/engine.h

