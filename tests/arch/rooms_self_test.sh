#!/bin/sh
# rooms.sh's own test: a tree that keeps the rule passes, one that breaks
# it (base including observe, net including verbs) fails.
exec sh "$(dirname "$0")/rooms.sh" --self-test
