# emu/: the emulated HCA, in five rooms, each with its own fragment and a
# one-way rule of which may include which (doc/architecture.md, checked by
# tests/arch/rooms.sh): base, device, objects, transport, observe. This
# file holds what the rooms share: the library they make and its flags.
libemucore_la_SOURCES = emu/emu.c emu/emu.h
libemucore_la_CFLAGS = $(AM_CFLAGS) $(NLROUTE_CFLAGS) $(INIH_CFLAGS)
libemucore_la_LIBADD = libemuutil.la libemunet.la $(NLROUTE_LIBS) \
	$(INIH_LIBS) -lm

EXTRA_DIST += doc/architecture.md doc/configuration.md doc/design-notes.md \
	doc/semantics.md doc/features.md doc/counters.md
