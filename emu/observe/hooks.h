/* What control and observability watch, subscribed to the device's
 * observer interface at emu_init() (emu/emu.c). */
#ifndef EMU_OBSERVE_HOOKS_H
#define EMU_OBSERVE_HOOKS_H

#include "emu/device/observer.h"

extern const struct emu_observer emu_observe_hooks;

#endif
