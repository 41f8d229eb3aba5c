# The emuverbs command (a shell front end) and the programs it runs.
emutooldir = $(pkglibexecdir)
emutool_PROGRAMS = tools/emuverbs-devices
tools_emuverbs_devices_SOURCES = tools/devices.c
tools_emuverbs_devices_LDADD = libibverbs.la

bin_SCRIPTS += emuverbs
CLEANFILES += emuverbs
EXTRA_DIST += tools/emuverbs.in
emuverbs: $(top_srcdir)/tools/emuverbs.in Makefile
	$(AM_V_GEN)sed -e 's|@emulibdir[@]|$(emuverbsdir)|g' \
		-e 's|@emutooldir[@]|$(emutooldir)|g' \
		$(top_srcdir)/tools/emuverbs.in > $@ && chmod +x $@
