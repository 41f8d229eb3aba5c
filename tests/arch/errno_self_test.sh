#!/bin/sh
# errno.sh's own test: a scratch tree that keeps emu/'s errno rule passes;
# one with a planted negative errno (returned, documented, or read by a
# caller) fails, and so does an exception no longer needed.
exec sh "$(dirname "$0")/errno.sh" --self-test
