# cm/mad.mk: the CM MAD wire format (cm/mad.c) as the convenience library
# libemucm, until cm/cm.mk builds the whole of cm/.
noinst_LTLIBRARIES += libemucm.la
libemucm_la_SOURCES = cm/mad.c cm/mad.h
