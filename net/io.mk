# UDP endpoints of the emulated ports (the socket side of net/).
libemunet_la_SOURCES += net/endpoint.c net/endpoint.h
