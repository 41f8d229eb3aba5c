#!/bin/sh
# Quick start, part one: installs what is missing, builds, and runs the
# demo through the emulated device.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
exec ./emuverbs demo
