#!/bin/sh
# Regenerates the Autotools build files from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
autoreconf -fi
